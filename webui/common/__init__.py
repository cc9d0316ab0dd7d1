"""The kit both web apps share: the table app (``webui``) and the tournament hall
(``webui.hall``) each build on it, and the hall on nothing else of the table app's.

``app`` (the setup every app gets: ``kit_app``), ``security`` (the director, this machine,
the security headers), ``director_auth`` (the director's password pages), ``attempts`` (wrong
passwords and PINs limited), ``errors`` (answers in words or JSON), ``validate`` (whole numbers
and text from requests, strictly), ``seating`` (a round's seating, as the hall pushes it to a
table app), ``signing`` and ``pdf`` (signed score-sheet PDFs, with ``signature_image``), and
``static/`` (the style sheet both apps' pages use).
"""
