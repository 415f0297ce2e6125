"""Placeholder until the history pages land."""
from flask import Blueprint
bp = Blueprint("history", __name__)
