"""scikit-learn compatible estimators, one module per paper.

Importing this package imports every estimator module, so each registers itself with the JSON
model registry (``svmviz.registry``); ``ESTIMATORS`` names them all.
"""

from svmviz.models.dag import DAGSVC, PairwiseVotingSVC, WeightedDAGSVC
from svmviz.models.guard import GuardVectorSVC
from svmviz.models.scatter import ScatterSVC
from svmviz.models.svc import BinaryNuSVC, BinarySVC
from svmviz.models.svm_tree import SVMTreeClassifier
from svmviz.models.tree_decomposition import TreeDecompositionSVC

#: every public estimator, each a registered model class
ESTIMATORS = ("BinarySVC", "BinaryNuSVC", "SVMTreeClassifier", "GuardVectorSVC", "TreeDecompositionSVC",
              "PairwiseVotingSVC", "DAGSVC", "WeightedDAGSVC", "ScatterSVC")

__all__ = [*ESTIMATORS, "ESTIMATORS"]
