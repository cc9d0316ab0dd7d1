"""Table reading: camera frames and detections in, typed table events out.

``camera`` (sources, reconnecting), ``layout`` and ``markers`` (where the tray and the spreads
are), ``voting`` (cards voted over frames), ``grouping`` (melds as laid down), ``reader``
(``TableReader``: deals, knocks and spreads) and ``events``. Uses ``vision.inference``; imports
nothing from ``vision.training``.
"""
