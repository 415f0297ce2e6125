"""What a browser needs to install the app to a home screen: the manifest, its icons and a favicon."""

from __future__ import annotations

from flask import Blueprint, Response, abort, jsonify, url_for
from flask.typing import ResponseReturnValue

from web.icons import SIZES, favicon_ico, icon_png

bp = Blueprint("install", __name__)

CACHE_A_DAY = {"Cache-Control": "public, max-age=86400"}
THEME = "#164a30"  # --felt-dark, the top bar
BACKGROUND = "#f6f4ee"  # --paper


@bp.get("/manifest.webmanifest")
def manifest() -> ResponseReturnValue:
    response = jsonify(
        {
            "name": "dicekeeper",
            "short_name": "dicekeeper",
            "description": "Keeps the score of Dice 10,000 and Farkle played with real dice.",
            "lang": "en",
            "start_url": url_for("pages.new_game"),
            "scope": "/",
            "display": "standalone",
            "theme_color": THEME,
            "background_color": BACKGROUND,
            "icons": [
                {
                    "src": url_for("install.icon", size=size),
                    "sizes": f"{size}x{size}",
                    "type": "image/png",
                    "purpose": "any",
                }
                for size in SIZES
            ],
        }
    )
    response.mimetype = "application/manifest+json"
    return response


@bp.get("/icons/icon-<int:size>.png")
def icon(size: int) -> ResponseReturnValue:
    if size not in SIZES:
        abort(404, f"There is no {size} px icon; there are {', '.join(map(str, SIZES))}.")
    return Response(icon_png(size), mimetype="image/png", headers=CACHE_A_DAY)


@bp.get("/favicon.ico")
def favicon() -> ResponseReturnValue:
    return Response(favicon_ico(), mimetype="image/x-icon", headers=CACHE_A_DAY)
