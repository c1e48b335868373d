"""The Streamlit side of svmviz (kept out of ``svmviz/`` so the library never imports Streamlit),
one module per concern: ``frame`` (what a method page declares and the frame that runs it),
``state`` (the one app state, bound to the URL), ``cache`` (fits and figures shared across
sessions), ``stepper`` (the step controls in a fragment), ``views`` (the shared figures and
tables), ``live`` (the live class), ``draw`` (drawing data), ``widgets``, ``controls``,
``projector`` (lesson mode), ``navigation``, ``server`` (the process settings) and ``warm`` (the
server made ready for the method pages once its first page is drawn).
"""

__all__ = ["cache", "controls", "draw", "frame", "live", "navigation", "projector", "server", "state", "stepper",
           "views", "warm", "widgets"]
