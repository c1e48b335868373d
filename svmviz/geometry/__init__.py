"""Geometry behind the duals: (reduced) convex hulls, nearest points, point-in-hull LPs and the
zero-solution conditions."""

from svmviz.geometry.hull_lp import (hulls_intersect, min_mu_containing, point_in_reduced_hull,
                                     separating_hyperplane)
from svmviz.geometry.zero_solution import zero_solution_report

__all__ = ["hulls_intersect", "min_mu_containing", "point_in_reduced_hull", "separating_hyperplane",
           "zero_solution_report"]
