"""amla_sandbox.capabilities.constraints: ``Constraint``, ``ConstraintSet``, ``Param``
and the constraint errors, which are capsa's (every decision is the C checker's)."""

from ...capabilities import Constraint, ConstraintSet, ConstraintType, Param
from ...errors import ConstraintError, MissingParamError, TypeMismatchError, ViolationError

__all__ = ["Constraint", "ConstraintError", "ConstraintSet", "ConstraintType", "MissingParamError",
           "Param", "TypeMismatchError", "ViolationError"]
