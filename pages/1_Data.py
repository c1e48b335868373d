import streamlit as st

from svmviz.plots.data import plot_dataset
from svmviz_app.widgets import data_sidebar

ds = data_sidebar()
st.plotly_chart(plot_dataset(ds))
