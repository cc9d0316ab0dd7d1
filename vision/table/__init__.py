"""Table reading: camera frames and detections in, typed table events out.

``camera`` (sources, reconnecting), ``layout`` and ``markers`` (where the tray and the spreads
are; ``layout.detector_settings()`` says how the detector reads this camera), ``voting`` (cards
voted over frames), ``grouping`` (melds as laid down), ``spreads`` (``read_spreads``: cards per
area -> a ``TableRead``, for one photo and the live table), ``deal`` (``DealWatcher``: the knock
card at a fresh deal), ``knock`` (``KnockWatcher``: knocker, layoffs, spreads settling),
``reader`` (``TableReader.feed`` -> ``FrameRead``; ``read_image``), ``events`` and ``picture``
(the camera picture with the cards read outlined). Uses ``vision.inference``; imports nothing
from ``vision.training``.
"""
