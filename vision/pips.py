"""Finding the pips inside one die candidate, with sizes scaled to the frame's die size."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.find import Candidate


@dataclass(frozen=True)
class PipSettings:
    """What a pip looks like, as fractions of the die's side."""

    min_diameter: float = 0.08
    max_diameter: float = 0.32
    min_roundness: float = 0.45  # minor / major axis; pips on a side face look squashed
    min_contrast: float = 28.0  # Lab distance between pip and face colour
    edge_margin: float = 0.06  # ignore this much of the region's rim (die edges, shadows)


@dataclass(frozen=True)
class Pip:
    x: float  # frame pixels
    y: float
    diameter: float
    roundness: float


@dataclass(frozen=True)
class PipFinding:
    """The pips of one candidate, and how clearly pips stand out from the face (Lab distance)."""

    pips: tuple[Pip, ...]
    contrast: float
    merged: int  # blobs that look like two pips run together (counted as two in `pips`)


def _roundness(moments: dict[str, float]) -> float:
    mu20, mu02, mu11 = moments["mu20"], moments["mu02"], moments["mu11"]
    spread = np.sqrt(4 * mu11**2 + (mu20 - mu02) ** 2)
    major, minor = mu20 + mu02 + spread, mu20 + mu02 - spread
    return float(np.sqrt(max(minor, 0.0) / major)) if major > 0 else 0.0


def find_pips(frame_bgr: np.ndarray, candidate: Candidate, die_size: float, settings: PipSettings | None = None) -> PipFinding:
    """Blobs inside the candidate that differ from the die's face colour and are pip-sized."""
    settings = settings or PipSettings()
    x0, y0 = candidate.origin
    region = candidate.mask
    roi = frame_bgr[y0 : y0 + region.shape[0], x0 : x0 + region.shape[1]]
    margin = max(1, round(settings.edge_margin * die_size))
    inner = cv2.erode(region, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * margin + 1, 2 * margin + 1)))
    if cv2.countNonZero(inner) < 4:
        return PipFinding((), 0.0, 0)
    lab = cv2.cvtColor(roi, cv2.COLOR_BGR2LAB)
    face = np.median(lab[inner > 0], axis=0).astype(np.float32)
    diff = cv2.subtract(lab, np.full_like(lab, 0), dtype=cv2.CV_32F) - face
    distance = cv2.sqrt((diff * diff).sum(axis=2))
    values = distance[inner > 0]
    otsu, _ = cv2.threshold(np.clip(values, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    threshold = max(settings.min_contrast, float(otsu))
    blobs = ((distance > threshold) & (inner > 0)).astype(np.uint8)
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(blobs, connectivity=8)

    min_area = np.pi / 4 * (settings.min_diameter * die_size) ** 2
    max_area = np.pi / 4 * (settings.max_diameter * die_size) ** 2
    found: list[Pip] = []
    strengths: list[float] = []
    merged = 0
    for k in range(1, count):
        area = stats[k, cv2.CC_STAT_AREA]
        if area < min_area or area > 2.4 * max_area:
            continue
        x, y, w, h = stats[k, :4]
        blob = (labels[y : y + h, x : x + w] == k).astype(np.uint8)
        roundness = _roundness(cv2.moments(blob, binaryImage=True))
        cx, cy = centroids[k]
        if area > max_area or (roundness < settings.min_roundness and 0.35 <= roundness and area > 1.6 * min_area):
            # Two pips run together (a six at low resolution): split along the long axis.
            if roundness > 0.7:
                continue
            ys, xs = np.nonzero(blob)
            points = np.column_stack([xs, ys]).astype(np.float32)
            mean = points.mean(axis=0)
            _, _, axes = np.linalg.svd(points - mean, full_matrices=False)
            along = (points - mean) @ axes[0]
            for side in (along < 0, along >= 0):
                px, py = points[side].mean(axis=0)
                found.append(Pip(float(px + x + x0), float(py + y + y0), float(np.sqrt(area / 2 / np.pi) * 2), roundness))
            merged += 1
            strengths.append(float(distance[labels == k].mean()))
            continue
        if roundness < settings.min_roundness:
            continue
        found.append(Pip(float(cx + x0), float(cy + y0), float(np.sqrt(area / np.pi) * 2), roundness))
        strengths.append(float(distance[labels == k].mean()))
    # Pips of one face share a size: drop specks much smaller than the typical pip (glare, dirt).
    if len(found) >= 2:
        typical = float(np.median([p.diameter for p in found]))
        keep = [i for i, p in enumerate(found) if p.diameter >= 0.6 * typical]
        found = [found[i] for i in keep]
    contrast = float(np.median(strengths)) if strengths else 0.0
    return PipFinding(tuple(found), contrast, merged)
