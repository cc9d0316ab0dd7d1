"""Inference: a frame in, typed card detections out (what a Pi runs).

``detector`` (the corner finder and the namer behind one ``CardDetector``), ``detection``
(``Detections`` of ``Detection``, and ``card_code``: the one card-code parser), ``tiling``
(the one tiler: tile layout and overlap merge for native-scale tiles and the finer pass),
``corner_pairing`` (a card's two indices vote on its name), ``corner_crops``, ``exposure``
(run-time light normalisation), ``classes`` (the 52 codes), ``cpu`` and ``doctor`` (does this
CPU read the check frame right). Imports nothing from ``vision.table`` or ``vision.training``.
"""
