"""Data: loading, validation, normalization, splits and deterministic generators.

The generators live in ``svmviz.data.generators`` and are imported when first used (so
``python -m svmviz.data.generators`` runs cleanly).
"""

from svmviz.data.builtins import BUILTINS, FOURCLASS_URL, default_dataset_name, fourclass_path, load_builtin
from svmviz.data.dataset import Dataset, csv_cell, minus_signs, plain_text, signed, validate_xy
from svmviz.data.fetch import fetch_fourclass
from svmviz.data.labels import MAX_LABEL_CHARS, name_labels
from svmviz.data.loaders import load_dataset
from svmviz.data.preprocessing import METHODS, normalize, split_and_normalize, split_indices, train_test_split
from svmviz.errors import DataError

__all__ = ["Dataset", "DataError", "load_dataset", "load_builtin", "BUILTINS", "normalize",
           "train_test_split", "split_indices", "split_and_normalize", "METHODS", "validate_xy", "default_dataset_name",
           "fourclass_path", "fetch_fourclass", "FOURCLASS_URL", "csv_cell", "minus_signs", "plain_text", "signed",
           "MAX_LABEL_CHARS", "name_labels"]
