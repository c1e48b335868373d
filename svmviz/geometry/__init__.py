"""Geometry behind the duals: (reduced) convex hulls, nearest points, point-in-hull LPs and the
zero-solution conditions."""

from svmviz.geometry.hull_lp import (TouchingMu, hulls_intersect, min_mu_containing, min_mu_intersecting,
                                     point_in_reduced_hull, reduced_hulls_intersect, separating_hyperplane)
from svmviz.geometry.hulls import (Hull, NearestPoints, NearestToPoint, ReducedHull, convex_hull,
                                   hull_boundary, hull_masks, mu_to_nu, nearest_point_to, nearest_points,
                                   nu_to_mu, reduced_convex_hull, support_point, support_weights)
from svmviz.geometry.mu_walk import MuStep, MuWalk, mu_walk, walk_step
from svmviz.geometry.zero_solution import (c_svm_w, w_norm_sweep, zero_solution_case,
                                           zero_solution_report)

__all__ = ["hulls_intersect", "reduced_hulls_intersect", "min_mu_containing", "point_in_reduced_hull",
           "separating_hyperplane",
           "zero_solution_report", "zero_solution_case", "convex_hull", "hull_boundary", "hull_masks",
           "reduced_convex_hull", "support_point", "support_weights", "nearest_points",
           "nearest_point_to", "nu_to_mu", "mu_to_nu", "c_svm_w", "w_norm_sweep", "Hull",
           "ReducedHull", "NearestPoints", "NearestToPoint", "min_mu_intersecting", "TouchingMu", "mu_walk",
           "walk_step", "MuWalk", "MuStep"]
