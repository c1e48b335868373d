"""svmviz home page."""

import streamlit as st

st.set_page_config(page_title="svmviz", layout="wide")
st.title("svmviz")
