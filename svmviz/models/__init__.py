"""scikit-learn compatible estimators, one module per paper.

Importing this package imports every estimator module, so each registers itself with the JSON
model registry (``svmviz.registry``). Each estimator class declares its parameters' constraints
(``svmviz.models.constraints``); ``param_spec(cls, name)`` reads one, e.g. for a widget.
"""

from svmviz.models.constraints import param_spec
from svmviz.models.dag import DAGSVC, PairwiseVotingSVC, WeightedDAGSVC
from svmviz.models.guard import GuardVectorSVC
from svmviz.models.scatter import ScatterSVC
from svmviz.models.svc import BinaryNuSVC, BinarySVC
from svmviz.models.svm_tree import SVMTreeClassifier
from svmviz.models.tree_decomposition import TreeDecompositionSVC

#: every public estimator by name (each is a registered model class)
ESTIMATORS = {cls.__name__: cls for cls in (BinarySVC, BinaryNuSVC, SVMTreeClassifier, GuardVectorSVC,
                                            TreeDecompositionSVC, PairwiseVotingSVC, DAGSVC, WeightedDAGSVC,
                                            ScatterSVC)}

__all__ = ["BinarySVC", "BinaryNuSVC", "SVMTreeClassifier", "GuardVectorSVC", "TreeDecompositionSVC",
           "PairwiseVotingSVC", "DAGSVC", "WeightedDAGSVC", "ScatterSVC", "ESTIMATORS", "param_spec"]
