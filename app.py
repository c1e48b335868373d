"""svmviz: the entry point (``streamlit run app.py``). It routes to the home page and to every page
file in ``pages/``, keeping Streamlit's usual URLs (``/Data``, ``/SVM_Tree``, ...), inside the app
state's run hooks (``svmviz_app.state``): the URL holds the view at every moment, so a copied link
reproduces it."""

from svmviz_app import server

server.configure()  # process settings for serving a class, once per server (svmviz_app/server.py)

from svmviz_app import live, state
from svmviz_app.navigation import app_navigation

state.app_started()
page = app_navigation(state.lesson_mode())
live.panel(page)
try:
    page.run()
finally:
    state.finish_run()
