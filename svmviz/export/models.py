"""Trained models as versioned JSON documents (never pickle: a file a student uploads must not be
able to run code)."""

from __future__ import annotations

import json
import os

import svmviz
from svmviz.errors import ModelFormatError
from svmviz.export.registry import decode_estimator, encode_estimator

FORMAT = "svmviz-model"
VERSION = 1


def _import_models():
    # the estimators register themselves when their modules are imported
    import svmviz.models  # noqa: F401


def dumps_model(model) -> str:
    _import_models()
    doc = {"format": FORMAT, "version": VERSION, "svmviz_version": svmviz.__version__,
           "estimator_class": type(model).__name__, "model": encode_estimator(model)}
    return json.dumps(doc, allow_nan=False)


def loads_model(text: str | bytes):
    """The estimator in a model document; every problem is a ``ModelFormatError``."""
    _import_models()
    try:
        doc = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ModelFormatError(f"not a svmviz model file: it is not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelFormatError(f"not a svmviz model file: the 'format' field must be {FORMAT!r}")
    version = doc.get("version")
    if type(version) is not int or version != VERSION:
        raise ModelFormatError(f"model file version {version!r} is not supported "
                               f"(this svmviz reads version {VERSION})")
    model = doc.get("model")
    if not isinstance(model, dict) or model.get("__estimator__") != doc.get("estimator_class"):
        raise ModelFormatError("model file is inconsistent: 'estimator_class' does not match the model")
    try:
        return decode_estimator(model)
    except ModelFormatError:
        raise
    except (TypeError, ValueError, KeyError, RecursionError) as exc:
        # e.g. an unhashable mapping key, or an estimator refusing a parameter value
        raise ModelFormatError(f"the model file is malformed: {exc}") from None


def save_model(model, path) -> None:
    """Write ``model`` to ``path`` as a versioned JSON document."""
    text = dumps_model(model)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def load_model(source):
    """Read a model from a path or a binary/text file object; validates, never runs code."""
    if isinstance(source, (str, os.PathLike)):
        try:
            with open(source, "rb") as fh:
                return loads_model(fh.read())
        except OSError as exc:
            raise ModelFormatError(f"cannot read the model file {source}: {exc.strerror}") from None
    return loads_model(source.read())
