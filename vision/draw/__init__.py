"""Annotators: they only draw readings and the live state onto a copy of a BGR frame."""
