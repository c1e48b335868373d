"""Helpers shared by the Streamlit pages (kept out of ``svmviz/`` so the library never imports
Streamlit): the current data set in session state, the data sidebar, download widgets and the
error guard that turns a ``ValueError`` into an ``st.error`` message."""
