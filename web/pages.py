"""Placeholder until the pages land."""
from flask import Blueprint
bp = Blueprint("pages", __name__)
