"""Training and evaluation (never imported at a table): ``train`` (the finder),
``train_classifier`` (the namer), ``train_device``, ``quantize``, ``namer_widen``,
``namer_from_onnx``, ``evaluate``, ``perturb`` (the robustness sweep), ``phone_data`` and
``phone_corners`` (the second deck's photos), ``synth`` (synthetic scenes from SVG decks).
"""
