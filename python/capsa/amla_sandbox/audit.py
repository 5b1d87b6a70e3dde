"""amla_sandbox.audit: ``AuditConfig``, ``AuditEntry`` and ``AuditCollector``, capsa's
(the host's own record of the library's audit lines)."""

from ..audit import AuditCollector, AuditConfig, AuditEntry

__all__ = ["AuditCollector", "AuditConfig", "AuditEntry"]
