"""Data: loading, validation, normalization, splits and deterministic generators."""

from svmviz.data.builtins import BUILTINS, default_dataset_name, fourclass_path, load_builtin
from svmviz.data.dataset import Dataset, validate_xy
from svmviz.data.loaders import MAX_FILE_MB, load_dataset
from svmviz.data.preprocessing import normalize, train_test_split
from svmviz.errors import DataError

__all__ = ["Dataset", "DataError", "load_dataset", "load_builtin", "BUILTINS", "normalize",
           "train_test_split", "validate_xy", "default_dataset_name", "fourclass_path", "MAX_FILE_MB"]
