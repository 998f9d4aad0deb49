"""A model's positions: what each layer does with them, read from a config.json, a GGUF or a
safetensors header, as the engine that runs the model does.

    types       the error, Layer, Finding, ModelPositions, Reading (imports none of the others)
    values      a config's values, checked
    files       GGUF and safetensors headers, read by slices
    presets     published configs, as published, with their sources
    sources     any source (dict, text, bytes, path, preset) as one config-shaped dict
    frequencies each layer type's inv_freq and attention factor, the head, the context
    arch        which layers rotate, with which parameters, as each modeling file does
    findings    what looks wrong, with its numbers
    reader      read_model and build
    report      plain text and JSON;  code: the export script

This file imports nothing, so that the page's start-up (which needs the presets only) does not
load the reader.
"""
