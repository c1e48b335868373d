"""Pure functions ``fitted model (+ data, + step) -> plotly Figure``; no Streamlit here."""
