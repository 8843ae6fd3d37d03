"""The model's errors, under one root: ``ModelError``.

Each keeps the builtin category its callers catch (a file that cannot be read is a ``ValueError``, an
unknown name a ``KeyError`` and a ``ValueError``, an unknown field of a constructor a ``TypeError``).
"""

from __future__ import annotations


class ModelError(Exception):
    """The root of the errors the reference model raises on purpose."""


class UnknownNameError(ModelError, KeyError, ValueError):
    """A name that names nothing known; the message suggests the closest (``reference.names``)."""

    __str__ = Exception.__str__  # the message as written, not quoted as a KeyError's key


class UnknownFieldError(UnknownNameError, TypeError):
    """A keyword argument a model dataclass does not have."""
