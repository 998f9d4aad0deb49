"""Published model configurations: the position-relevant part of each config.json, as
published, with its source.

Each preset:

- label: the model's name.
- source: the file the values were copied from (repository, path, commit).
- format: the kind of file (a Hugging Face config.json unless it says otherwise).
- config: the keys of that file that bear on positions, with their values and nesting as
  published (model_type, architectures, widths, heads, layers, lengths, rope_*,
  partial rotary, windows, per-layer schedules, ALiBi and relative-bucket settings).
  Other keys (vocabulary, dropout, ...) are left out; no key is added.
- defaults (optional): values the file omits and the loading code supplies, with
  defaults_source naming that code. Never merged into config.
- base (optional, for a fragment): the preset the fragment edits.
"""

PRESETS: dict[str, dict] = {
    # The file names no rope_theta: LlamaConfig's default (10000.0) applies.
    "llama-2-7b": {
        "label": "Llama 2 7B",
        "source": "meta-llama/Llama-2-7b-hf config.json, as copied in scaleapi/llm-engine "
        "model-engine/tests/unit/conftest.py (FakeLLMArtifactGateway.model_config), "
        "commit 005cb393ab84a57af0b9dc9a3a70230390f644ea",
        "format": "config.json",
        "config": {
            "architectures": ["LlamaForCausalLM"],
            "hidden_size": 4096,
            "max_position_embeddings": 4096,
            "model_type": "llama",
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "num_key_value_heads": 32,
            "rope_scaling": None,
        },
    },
    "code-llama-7b": {
        "label": "Code Llama 7B",
        "source": "codellama/CodeLlama-7b-hf config.json, as copied in mlc-ai/mlc-llm "
        "python/mlc_llm/model/model_preset.py (MODEL_PRESETS['codellama_7b']), commit "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93",
        "format": "config.json",
        "config": {
            "architectures": ["LlamaForCausalLM"],
            "hidden_size": 4096,
            "max_position_embeddings": 16384,
            "model_type": "llama",
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "num_key_value_heads": 32,
            "rope_scaling": None,
            "rope_theta": 1000000,
        },
    },
    "llama-3-8b-instruct": {
        "label": "Llama 3 8B Instruct",
        "source": "meta-llama/Meta-Llama-3-8B-Instruct config.json, as copied in "
        "kevinstephano/thunder_model_blocks "
        "thunder_model_blocks/llama/llama_3_8B_Instruct_config.py, commit "
        "5c083b0e1fc8c408308c6b602bfd4669a36a2901",
        "format": "config.json",
        "config": {
            "architectures": ["LlamaForCausalLM"],
            "hidden_size": 4096,
            "max_position_embeddings": 8192,
            "model_type": "llama",
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "num_key_value_heads": 8,
            "rope_scaling": None,
            "rope_theta": 500000.0,
        },
    },
    "llama-3.1-8b": {
        "label": "Llama 3.1 8B",
        "source": "meta-llama/Llama-3.1-8B config.json, as copied in NVIDIA/TensorRT-LLM "
        "tests/unittest/_torch/modeling/test_modeling_llama.py (LLAMA_3_1_8B_CONFIG), "
        "commit 151c21c6a0034712a71fb0352cf7c75ea07b7b5b; same position values in "
        "mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py ('llama3_1_8b'), commit "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93",
        "format": "config.json",
        "config": {
            "architectures": ["LlamaForCausalLM"],
            "hidden_size": 4096,
            "max_position_embeddings": 131072,
            "model_type": "llama",
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "num_key_value_heads": 8,
            "rope_scaling": {
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
            "rope_theta": 500000.0,
        },
    },
    "llama-3.2-1b-instruct": {
        "label": "Llama 3.2 1B Instruct",
        "source": "meta-llama/Llama-3.2-1B-Instruct config.json (_commit_hash 4e20de36), as copied "
        "in kevinstephano/thunder_model_blocks "
        "thunder_model_blocks/llama/llama_config.py (LLAMA_3_2_1B_CFG), commit "
        "5c083b0e1fc8c408308c6b602bfd4669a36a2901; same position values in "
        "mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py ('llama3_2_1b'), commit "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93",
        "format": "config.json",
        "config": {
            "architectures": ["LlamaForCausalLM"],
            "head_dim": 64,
            "hidden_size": 2048,
            "max_position_embeddings": 131072,
            "model_type": "llama",
            "num_attention_heads": 32,
            "num_hidden_layers": 16,
            "num_key_value_heads": 8,
            "rope_scaling": {
                "factor": 32.0,
                "high_freq_factor": 4.0,
                "low_freq_factor": 1.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
            "rope_theta": 500000.0,
        },
    },
    # no_rope_layers is [] in the file; transformers then builds it from no_rope_layer_interval=4 (1
    # = RoPE, 0 = NoPE: every 4th layer has no RoPE and global attention, the others are RoPE layers
    # with chunked attention of attention_chunk_size tokens).
    "llama-4-scout-17b-16e": {
        "label": "Llama 4 Scout 17B-16E",
        "source": "meta-llama/Llama-4-Scout-17B-16E config.json, as quoted in AMD-AGI/Primus "
        "pull/165 (description, 2025-08-22, 'Update Llama-4-Scout-17B-16E Megatron "
        "Configs'); the quote stops after router_jitter_noise, past every position key",
        "format": "config.json",
        "config": {
            "architectures": ["Llama4ForConditionalGeneration"],
            "model_type": "llama4",
            "text_config": {
                "attention_chunk_size": 8192,
                "head_dim": 128,
                "hidden_size": 5120,
                "max_position_embeddings": 262144,
                "model_type": "llama4_text",
                "no_rope_layers": [],
                "num_attention_heads": 40,
                "num_hidden_layers": 48,
                "num_key_value_heads": 8,
                "rope_scaling": {
                    "factor": 16.0,
                    "high_freq_factor": 1.0,
                    "low_freq_factor": 1.0,
                    "original_max_position_embeddings": 8192,
                    "rope_type": "llama3",
                },
                "rope_theta": 500000.0,
            },
        },
    },
    "mistral-7b-v0.1": {
        "label": "Mistral 7B v0.1",
        "source": "mistralai/Mistral-7B-v0.1 config.json, as copied in tanganke/fusion_bench "
        "tests/test_depth_upscaling.py (MistralConfig(**{...}), cites "
        "huggingface.co/mistralai/Mistral-7B-v0.1/resolve/main/config.json), commit "
        "54c9e8c9d9621620c720452cd8533332a32d3689",
        "format": "config.json",
        "config": {
            "architectures": ["MistralForCausalLM"],
            "hidden_size": 4096,
            "max_position_embeddings": 32768,
            "model_type": "mistral",
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "num_key_value_heads": 8,
            "rope_theta": 10000.0,
            "sliding_window": 4096,
        },
    },
    "mistral-7b-v0.3": {
        "label": "Mistral 7B v0.3",
        "source": "mistralai/Mistral-7B-v0.3 config.json, as copied in mlc-ai/mlc-llm "
        "python/mlc_llm/model/model_preset.py ('mistral_7b_v03'), commit "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93",
        "format": "config.json",
        "config": {
            "architectures": ["MistralForCausalLM"],
            "hidden_size": 4096,
            "max_position_embeddings": 32768,
            "model_type": "mistral",
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "num_key_value_heads": 8,
            "rope_theta": 1000000.0,
            "sliding_window": None,
        },
    },
    # head_dim (128) is not hidden_size / num_attention_heads (160): the file sets it.
    "mistral-nemo-base-2407": {
        "label": "Mistral NeMo Base 2407 (12B)",
        "source": "mistralai/Mistral-Nemo-Base-2407 config.json, as copied in "
        "kevinstephano/thunder_model_blocks "
        "thunder_model_blocks/mistral/mistral_config.py, commit "
        "5c083b0e1fc8c408308c6b602bfd4669a36a2901",
        "format": "config.json",
        "config": {
            "architectures": ["MistralForCausalLM"],
            "head_dim": 128,
            "hidden_size": 5120,
            "max_position_embeddings": 128000,
            "model_type": "mistral",
            "num_attention_heads": 32,
            "num_hidden_layers": 40,
            "num_key_value_heads": 8,
            "rope_theta": 1000000.0,
            "sliding_window": None,
        },
    },
    "mixtral-8x7b": {
        "label": "Mixtral 8x7B v0.1",
        "source": "mistralai/Mixtral-8x7B-v0.1 config.json, as copied in NVIDIA/TensorRT-LLM "
        "tests/unittest/_torch/modeling/test_modeling_mixtral.py (MIXTRAL_8X7B_CONFIG), "
        "commit 1aa6e3d4645f61bb7c93caa65caaec519ccd51ee; same position values in "
        "mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py ('Mixtral-8x7B-v0.1'), "
        "commit 79d603f085f50500e9509fa01785ffa7ecfaaa93",
        "format": "config.json",
        "config": {
            "architectures": ["MixtralForCausalLM"],
            "hidden_size": 4096,
            "max_position_embeddings": 32768,
            "model_type": "mixtral",
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "num_key_value_heads": 8,
            "rope_theta": 1000000.0,
            "sliding_window": None,
        },
    },
    # The transformers >= 5 schema: rope_theta lives inside rope_parameters
    # (text_config.rope_parameters), next to the YaRN keys.
    "ministral-3-3b-2512": {
        "label": "Ministral 3 3B (2512)",
        "source": "mistralai/Ministral-3-3B-*-2512 config.json (transformers_version 5.0.0.dev0), "
        "as copied in mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py "
        "('ministral3_3b_2512'), commit 79d603f085f50500e9509fa01785ffa7ecfaaa93",
        "format": "config.json",
        "config": {
            "architectures": ["Mistral3ForConditionalGeneration"],
            "model_type": "ministral3",
            "text_config": {
                "head_dim": 128,
                "hidden_size": 3072,
                "max_position_embeddings": 262144,
                "model_type": "ministral3",
                "num_attention_heads": 32,
                "num_hidden_layers": 26,
                "num_key_value_heads": 8,
                "rope_parameters": {
                    "beta_fast": 32.0,
                    "beta_slow": 1.0,
                    "factor": 16.0,
                    "llama_4_scaling_beta": 0.1,
                    "mscale": 1.0,
                    "mscale_all_dim": 1.0,
                    "original_max_position_embeddings": 16384,
                    "rope_theta": 1000000.0,
                    "rope_type": "yarn",
                    "type": "yarn",
                },
                "sliding_window": None,
            },
        },
    },
    # use_sliding_window is false: the sliding_window value is not applied.
    "qwen2.5-3b-instruct": {
        "label": "Qwen2.5 3B Instruct",
        "source": "Qwen/Qwen2.5-3B-Instruct config.json, as copied in mlc-ai/mlc-llm "
        "python/mlc_llm/model/model_preset.py ('qwen2.5_3b'), commit "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93",
        "format": "config.json",
        "config": {
            "architectures": ["Qwen2ForCausalLM"],
            "hidden_size": 2048,
            "max_position_embeddings": 32768,
            "max_window_layers": 70,
            "model_type": "qwen2",
            "num_attention_heads": 16,
            "num_hidden_layers": 36,
            "num_key_value_heads": 2,
            "rope_theta": 1000000.0,
            "sliding_window": 32768,
            "use_sliding_window": False,
        },
    },
    # A fragment, not a whole file: Qwen's documented addition to a Qwen2.5 config.json.
    "qwen2.5-yarn-4x": {
        "label": "Qwen2.5: YaRN x4 (documented config.json edit)",
        "source": "QwenLM/Qwen2.5 docs/source/deployment/vllm.md ('Extended Context Support', the "
        "rope_scaling block to add to a Qwen2.5 config.json), commit "
        "2abc0f3243e20cf45b6a3ab60308db701c0c3111",
        "format": "config.json fragment",
        "base": "qwen2.5-3b-instruct",
        "config": {
            "rope_scaling": {
                "factor": 4.0,
                "original_max_position_embeddings": 32768,
                "type": "yarn",
            }
        },
    },
    # mrope_section [16, 24, 24] splits the 64 rotary pairs (head_dim 128) into temporal, height and
    # width bands.
    "qwen2.5-vl-7b-instruct": {
        "label": "Qwen2.5-VL 7B Instruct",
        "source": "Qwen/Qwen2.5-VL-7B-Instruct config.json, as copied in sdpython/onnx-diagnostic "
        "onnx_diagnostic/torch_models/hghub/hub_data_cached_configs.py "
        "(_ccached_qwen_qwen2_5_vl_7b_instruct), commit "
        "cc937c25e830a1195f73090ada9ea6bd8f670a57; same position values in "
        "NVIDIA/TensorRT-LLM tests/unittest/_torch/modeling/test_modeling_qwen2_5vl.py "
        "(QWEN2_5_VL_7B_CONFIG, which cuts num_hidden_layers to 2 for testing)",
        "format": "config.json",
        "config": {
            "architectures": ["Qwen2_5_VLForConditionalGeneration"],
            "hidden_size": 3584,
            "max_position_embeddings": 128000,
            "max_window_layers": 28,
            "model_type": "qwen2_5_vl",
            "num_attention_heads": 28,
            "num_hidden_layers": 28,
            "num_key_value_heads": 4,
            "rope_theta": 1000000.0,
            "sliding_window": 32768,
            "use_sliding_window": False,
            "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        },
    },
    "qwen3-8b": {
        "label": "Qwen3 8B",
        "source": "Qwen/Qwen3-8B config.json, as copied in mlc-ai/mlc-llm "
        "python/mlc_llm/model/model_preset.py ('qwen3_8b', a commented-out preset), "
        "commit 8f49ea6b7bc71360cb6d19fd57f930c90705e0ea",
        "format": "config.json",
        "config": {
            "architectures": ["Qwen3ForCausalLM"],
            "head_dim": 128,
            "hidden_size": 4096,
            "max_position_embeddings": 40960,
            "max_window_layers": 36,
            "model_type": "qwen3",
            "num_attention_heads": 32,
            "num_hidden_layers": 36,
            "num_key_value_heads": 8,
            "rope_scaling": None,
            "rope_theta": 1000000,
            "sliding_window": None,
            "use_sliding_window": False,
        },
    },
    # A fragment, not a whole file: Qwen's documented edit of a Qwen3 config.json.
    "qwen3-yarn-4x": {
        "label": "Qwen3: YaRN x4 to 131072 (documented config.json edit)",
        "source": "QwenLM/Qwen2.5 docs/source/inference/transformers.md (the repository now "
        "documents Qwen3; 'Enabling Long Context', the fields to add to config.json), "
        "commit 77fb0c1e20ee5bf36326d0004eaa09df651a0346",
        "format": "config.json fragment",
        "base": "qwen3-8b",
        "config": {
            "max_position_embeddings": 131072,
            "rope_scaling": {
                "rope_type": "yarn",
                "factor": 4.0,
                "original_max_position_embeddings": 32768,
            },
        },
    },
    # Interleaved M-RoPE: mrope_section [24, 20, 20] over 64 rotary pairs.
    "qwen3-vl-2b-instruct": {
        "label": "Qwen3-VL 2B Instruct",
        "source": "Qwen/Qwen3-VL-2B-Instruct config.json, as copied in mlc-ai/mlc-llm "
        "tests/python/model/data/qwen3_vl_2b_instruct/config.json, commit "
        "3b47c043d513779c1c2f217910789635c91a5dbd",
        "format": "config.json",
        "config": {
            "architectures": ["Qwen3VLForConditionalGeneration"],
            "model_type": "qwen3_vl",
            "text_config": {
                "head_dim": 128,
                "hidden_size": 2048,
                "max_position_embeddings": 262144,
                "model_type": "qwen3_vl_text",
                "num_attention_heads": 16,
                "num_hidden_layers": 28,
                "num_key_value_heads": 8,
                "rope_scaling": {
                    "mrope_interleaved": True,
                    "mrope_section": [24, 20, 20],
                    "rope_type": "default",
                },
                "rope_theta": 5000000,
            },
        },
    },
    # The file has no layer_types: transformers alternates sliding (even layers) and global (odd
    # layers) attention.
    "gemma-2-9b-it": {
        "label": "Gemma 2 9B IT",
        "source": "google/gemma-2-9b-it config.json, as copied in "
        "kevinstephano/thunder_model_blocks "
        "thunder_model_blocks/gemma2/gemma2_config.py, commit "
        "5c083b0e1fc8c408308c6b602bfd4669a36a2901; same position values in "
        "mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py ('gemma2_9b'), commit "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93",
        "format": "config.json",
        "config": {
            "architectures": ["Gemma2ForCausalLM"],
            "head_dim": 256,
            "hidden_size": 3584,
            "max_position_embeddings": 8192,
            "model_type": "gemma2",
            "num_attention_heads": 16,
            "num_hidden_layers": 42,
            "num_key_value_heads": 8,
            "rope_theta": 10000.0,
            "sliding_window": 4096,
            "sliding_window_size": 4096,
        },
    },
    # Local layers use rope_local_base_freq, every 6th layer (sliding_window_pattern) is global with
    # rope_theta.
    "gemma-3-1b-it": {
        "label": "Gemma 3 1B IT",
        "source": "google/gemma-3-1b-it config.json, as copied in mlc-ai/mlc-llm "
        "python/mlc_llm/model/model_preset.py ('gemma3_1b_it'), commit "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93; same position values in "
        "NVIDIA/TensorRT-LLM tests/unittest/_torch/modeling/test_modeling_gemma3.py "
        "(GEMMA3_1B_SINGLE_LAYER_CONFIG, which cuts num_hidden_layers to 1)",
        "format": "config.json",
        "config": {
            "architectures": ["Gemma3ForCausalLM"],
            "head_dim": 256,
            "hidden_size": 1152,
            "max_position_embeddings": 32768,
            "model_type": "gemma3_text",
            "num_attention_heads": 4,
            "num_hidden_layers": 26,
            "num_key_value_heads": 1,
            "rope_local_base_freq": 10000,
            "rope_scaling": None,
            "rope_theta": 1000000,
            "sliding_window": 512,
            "sliding_window_pattern": 6,
        },
    },
    # The file names only a few text_config keys; transformers' Gemma3TextConfig defaults supply the
    # rest (rope_local_base_freq 10000 on local layers, rope_theta 1e6 on global layers, one global
    # layer in 6). rope_scaling (linear, factor 8) applies to the global layers only.
    "gemma-3-4b-it": {
        "label": "Gemma 3 4B IT",
        "source": "google/gemma-3-4b-it config.json, as copied in sdpython/onnx-diagnostic "
        "onnx_diagnostic/torch_models/hghub/hub_data_cached_configs.py "
        "(_ccached_google_gemma_3_4b_it_like), commit "
        "cc937c25e830a1195f73090ada9ea6bd8f670a57",
        "format": "config.json",
        "config": {
            "architectures": ["Gemma3ForConditionalGeneration"],
            "model_type": "gemma3",
            "text_config": {
                "hidden_size": 2560,
                "model_type": "gemma3_text",
                "num_hidden_layers": 34,
                "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
                "sliding_window": 1024,
            },
        },
    },
    # partial_rotary_factor 0.4: 32 of the 80 head dimensions rotate. rope_scaling is the copy's
    # value with its dynamic_rope flag off (the default).
    # As published, the file names only what differs from Gemma3TextConfig's defaults: no
    # rope_theta, no rope_local_base_freq, no sliding_window_pattern. transformers runs 52 local
    # layers at θ 10000 unscaled and 10 global ones at 1e6 with linear ×8.
    "gemma-3-27b-it": {
        "label": "Gemma 3 27B IT",
        "source": "google/gemma-3-27b-it config.json, as copied in brb-nv/TensorRT-LLM "
        "tests/unittest/_torch/modeling/test_modeling_gemma3vl.py (GEMMA3_27B_MINI_CONFIG), "
        "commit a355137c2949737465373be2aae02156a596f43c, whose two lines marked 'Modified for "
        "testing' (num_hidden_layers 6, sliding_window 4) are given here as published, 62 and "
        "1024, as that test's own comment and the model card state",
        "format": "config.json",
        "config": {
            "architectures": ["Gemma3ForConditionalGeneration"],
            "model_type": "gemma3",
            "text_config": {
                "head_dim": 128,
                "hidden_size": 5376,
                "model_type": "gemma3_text",
                "num_attention_heads": 32,
                "num_hidden_layers": 62,
                "num_key_value_heads": 16,
                "query_pre_attn_scalar": 168,
                "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
                "sliding_window": 1024,
            },
        },
    },
    "phi-2": {
        "label": "Phi-2",
        "source": "microsoft/phi-2 config.json, as copied in sdpython/onnx-diagnostic "
        "onnx_diagnostic/torch_models/untrained/llm_phi2.py (get_phi2 config), commit "
        "cc937c25e830a1195f73090ada9ea6bd8f670a57",
        "format": "config.json",
        "config": {
            "architectures": ["PhiForCausalLM"],
            "hidden_size": 2560,
            "max_position_embeddings": 2048,
            "model_type": "phi",
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "num_key_value_heads": 32,
            "partial_rotary_factor": 0.4,
            "rope_scaling": None,
            "rope_theta": 10000.0,
        },
    },
    "phi-3-mini-4k-instruct": {
        "label": "Phi-3 mini 4K Instruct",
        "source": "microsoft/Phi-3-mini-4k-instruct config.json, as copied in NVIDIA/TensorRT-LLM "
        "tests/unittest/_torch/modeling/test_modeling_phi3.py (PHI3_MINI_4K_CONFIG), "
        "commit 43b18bdf762a7df3f2c0d2611c7ad87e57802310; same position values in "
        "mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py ('phi-3', commented out), "
        "commit 8f49ea6b7bc71360cb6d19fd57f930c90705e0ea",
        "format": "config.json",
        "config": {
            "architectures": ["Phi3ForCausalLM"],
            "hidden_size": 3072,
            "max_position_embeddings": 4096,
            "model_type": "phi3",
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "num_key_value_heads": 32,
            "original_max_position_embeddings": 4096,
            "rope_scaling": None,
            "rope_theta": 10000.0,
            "sliding_window": 2047,
        },
    },
    # LongRoPE: 48 short and 48 long per-pair factors (head_dim 96 / 2), switched at
    # original_max_position_embeddings.
    "phi-3-mini-128k-instruct": {
        "label": "Phi-3 mini 128K Instruct",
        "source": "microsoft/Phi-3-mini-128k-instruct config.json, as copied in "
        "sdpython/onnx-diagnostic "
        "onnx_diagnostic/torch_models/hghub/hub_data_cached_configs.py "
        "(_ccached_microsoft_phi3_mini_128k_instruct), commit "
        "cc937c25e830a1195f73090ada9ea6bd8f670a57",
        "format": "config.json",
        "config": {
            "architectures": ["Phi3ForCausalLM"],
            "hidden_size": 3072,
            "max_position_embeddings": 131072,
            "model_type": "phi3",
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "num_key_value_heads": 32,
            "original_max_position_embeddings": 4096,
            "rope_scaling": {
                "long_factor": [
                    1.0700000524520874,
                    1.1200000047683716,
                    1.149999976158142,
                    1.4199999570846558,
                    1.5699999332427979,
                    1.7999999523162842,
                    2.129999876022339,
                    2.129999876022339,
                    3.009999990463257,
                    5.910000324249268,
                    6.950000286102295,
                    9.070000648498535,
                    9.930000305175781,
                    10.710000038146973,
                    11.130000114440918,
                    14.609999656677246,
                    15.409998893737793,
                    19.809999465942383,
                    37.279998779296875,
                    38.279998779296875,
                    38.599998474121094,
                    40.12000274658203,
                    46.20000457763672,
                    50.940006256103516,
                    53.66000747680664,
                    54.9373893737793,
                    56.89738845825195,
                    57.28738784790039,
                    59.98738479614258,
                    60.86738586425781,
                    60.887386322021484,
                    61.71739196777344,
                    62.91739273071289,
                    62.957393646240234,
                    63.41739273071289,
                    63.8173942565918,
                    63.83739471435547,
                    63.897396087646484,
                    63.93739700317383,
                    64.06739807128906,
                    64.11434936523438,
                    64.12435150146484,
                    64.15435028076172,
                    64.19435119628906,
                    64.24435424804688,
                    64.57435607910156,
                    64.69000244140625,
                    64.76000213623047,
                ],
                "short_factor": [
                    1.1,
                    1.1,
                    1.1,
                    1.3000000000000003,
                    1.3500000000000003,
                    1.3500000000000003,
                    1.4000000000000004,
                    1.5500000000000005,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.000000000000001,
                    2.0500000000000007,
                    2.0500000000000007,
                    2.0500000000000007,
                    2.0500000000000007,
                    2.0500000000000007,
                    2.0500000000000007,
                    2.1000000000000005,
                    2.1000000000000005,
                    2.1500000000000004,
                    2.25,
                    2.25,
                    2.25,
                    2.25,
                    2.25,
                    2.3999999999999995,
                    2.4499999999999993,
                    2.499999999999999,
                    2.6999999999999984,
                    2.6999999999999984,
                    2.7499999999999982,
                    2.799999999999998,
                    2.8999999999999977,
                    3.049999999999997,
                ],
                "type": "longrope",
            },
            "rope_theta": 10000.0,
            "sliding_window": 262144,
        },
    },
    "phi-3.5-mini-instruct": {
        "label": "Phi-3.5 mini Instruct",
        "source": "microsoft/Phi-3.5-mini-instruct config.json, as copied in mlc-ai/mlc-llm "
        "python/mlc_llm/model/model_preset.py ('phi-3_5'), commit "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93; same position values in "
        "kevinstephano/thunder_model_blocks hf_phi3/phi3_rope.py (phi35_cfg_str), commit "
        "3b6d7c9244c93fbe84d9fd2612e8a389e00778d3",
        "format": "config.json",
        "config": {
            "architectures": ["Phi3ForCausalLM"],
            "hidden_size": 3072,
            "max_position_embeddings": 131072,
            "model_type": "phi3",
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "num_key_value_heads": 32,
            "original_max_position_embeddings": 4096,
            "rope_scaling": {
                "long_factor": [
                    1.0800000429153442,
                    1.1100000143051147,
                    1.1399999856948853,
                    1.340000033378601,
                    1.5899999141693115,
                    1.600000023841858,
                    1.6200000047683716,
                    2.620000123977661,
                    3.2300000190734863,
                    3.2300000190734863,
                    4.789999961853027,
                    7.400000095367432,
                    7.700000286102295,
                    9.09000015258789,
                    12.199999809265137,
                    17.670000076293945,
                    24.46000099182129,
                    28.57000160217285,
                    30.420001983642578,
                    30.840002059936523,
                    32.590003967285156,
                    32.93000411987305,
                    42.320003509521484,
                    44.96000289916992,
                    50.340003967285156,
                    50.45000457763672,
                    57.55000305175781,
                    57.93000411987305,
                    58.21000289916992,
                    60.1400032043457,
                    62.61000442504883,
                    62.62000274658203,
                    62.71000289916992,
                    63.1400032043457,
                    63.1400032043457,
                    63.77000427246094,
                    63.93000411987305,
                    63.96000289916992,
                    63.970001220703125,
                    64.02999877929688,
                    64.06999969482422,
                    64.08000183105469,
                    64.12000274658203,
                    64.41000366210938,
                    64.4800033569336,
                    64.51000213623047,
                    64.52999877929688,
                    64.83999633789062,
                ],
                "short_factor": [
                    1.0,
                    1.0199999809265137,
                    1.0299999713897705,
                    1.0299999713897705,
                    1.0499999523162842,
                    1.0499999523162842,
                    1.0499999523162842,
                    1.0499999523162842,
                    1.0499999523162842,
                    1.0699999332427979,
                    1.0999999046325684,
                    1.1099998950958252,
                    1.1599998474121094,
                    1.1599998474121094,
                    1.1699998378753662,
                    1.2899998426437378,
                    1.339999794960022,
                    1.679999828338623,
                    1.7899998426437378,
                    1.8199998140335083,
                    1.8499997854232788,
                    1.8799997568130493,
                    1.9099997282028198,
                    1.9399996995925903,
                    1.9899996519088745,
                    2.0199997425079346,
                    2.0199997425079346,
                    2.0199997425079346,
                    2.0199997425079346,
                    2.0199997425079346,
                    2.0199997425079346,
                    2.0299997329711914,
                    2.0299997329711914,
                    2.0299997329711914,
                    2.0299997329711914,
                    2.0299997329711914,
                    2.0299997329711914,
                    2.0299997329711914,
                    2.0299997329711914,
                    2.0299997329711914,
                    2.0799996852874756,
                    2.0899996757507324,
                    2.189999580383301,
                    2.2199995517730713,
                    2.5899994373321533,
                    2.729999542236328,
                    2.749999523162842,
                    2.8399994373321533,
                ],
                "type": "longrope",
            },
            "rope_theta": 10000.0,
            "sliding_window": 262144,
        },
    },
    # The trainer's config, not the Hugging Face config.json. rotary_pct 0.25: 24 of the 96 head
    # dimensions rotate.
    "gpt-neox-20b": {
        "label": "GPT-NeoX-20B",
        "source": "EleutherAI/gpt-neox configs/20B.yml (the training config of GPT-NeoX-20B), "
        "commit ea7aefd8f8e183256992d9fede4d7c71a46d67a5",
        "format": "gpt-neox yml",
        "config": {
            "num_layers": 44,
            "hidden_size": 6144,
            "num_attention_heads": 64,
            "seq_length": 2048,
            "max_position_embeddings": 2048,
            "pos_emb": "rotary",
            "rotary_pct": 0.25,
        },
        "defaults": {"rotary_emb_base": 10000},
        "defaults_source": "EleutherAI/gpt-neox megatron/neox_arguments/neox_args.py "
        "(rotary_emb_base: int = 10000), commit "
        "ea7aefd8f8e183256992d9fede4d7c71a46d67a5",
    },
    # The trainer's config (its keys use hyphens), not the Hugging Face config.json.
    "pythia-1.4b": {
        "label": "Pythia 1.4B",
        "source": "EleutherAI/pythia models/1.4B/pythia-1.4b.yml (the GPT-NeoX training config), "
        "commit a19eecb807ec2c79a39ebf18108816e6ffffc1d5",
        "format": "gpt-neox yml",
        "config": {
            "num-layers": 24,
            "hidden-size": 2048,
            "num-attention-heads": 16,
            "seq-length": 2048,
            "max-position-embeddings": 2048,
            "pos-emb": "rotary",
            "rotary-pct": 0.25,
        },
        "defaults": {"rotary_emb_base": 10000},
        "defaults_source": "EleutherAI/gpt-neox megatron/neox_arguments/neox_args.py "
        "(rotary_emb_base: int = 10000), commit "
        "ea7aefd8f8e183256992d9fede4d7c71a46d67a5",
    },
    "stablelm-2-zephyr-1.6b": {
        "label": "StableLM 2 Zephyr 1.6B",
        "source": "stabilityai/stablelm-2-zephyr-1_6b config.json, as copied in mlc-ai/mlc-llm "
        "python/mlc_llm/model/model_preset.py ('stablelm-2-zephyr-1_6b'), commit "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93",
        "format": "config.json",
        "config": {
            "architectures": ["StableLmForCausalLM"],
            "hidden_size": 2048,
            "max_position_embeddings": 4096,
            "model_type": "stablelm",
            "num_attention_heads": 32,
            "num_hidden_layers": 24,
            "num_key_value_heads": 32,
            "partial_rotary_factor": 0.25,
            "rope_theta": 10000,
        },
    },
    # YaRN on the 64 rope dimensions of MLA (qk_rope_head_dim); mscale and mscale_all_dim set the
    # attention-temperature correction.
    "deepseek-v2-lite": {
        "label": "DeepSeek-V2-Lite",
        "source": "deepseek-ai/DeepSeek-V2-Lite config.json, as copied in mlc-ai/mlc-llm "
        "python/mlc_llm/model/model_preset.py ('deepseek_v2_lite'), commit "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93",
        "format": "config.json",
        "config": {
            "architectures": ["DeepseekV2ForCausalLM"],
            "hidden_size": 2048,
            "kv_lora_rank": 512,
            "max_position_embeddings": 163840,
            "model_type": "deepseek_v2",
            "num_attention_heads": 16,
            "num_hidden_layers": 27,
            "num_key_value_heads": 16,
            "qk_nope_head_dim": 128,
            "qk_rope_head_dim": 64,
            "rope_scaling": {
                "beta_fast": 32,
                "beta_slow": 1,
                "factor": 40,
                "mscale": 0.707,
                "mscale_all_dim": 0.707,
                "original_max_position_embeddings": 4096,
                "type": "yarn",
            },
            "rope_theta": 10000,
            "v_head_dim": 128,
        },
    },
    # DeepSeek's own inference config; its keys differ from the Hugging Face config.json. The YaRN
    # settings are not in config_671B.json: ModelArgs supplies them (see defaults).
    "deepseek-v3": {
        "label": "DeepSeek-V3 (671B)",
        "source": "deepseek-ai/DeepSeek-V3 inference/configs/config_671B.json, with the YaRN "
        "values of inference/model.py ModelArgs, commit "
        "9b4e9788e4a3a731f7567338ed15d3ec549ce03b",
        "format": "DeepSeek-V3 inference config",
        "config": {
            "dim": 7168,
            "n_layers": 61,
            "n_heads": 128,
            "q_lora_rank": 1536,
            "kv_lora_rank": 512,
            "qk_nope_head_dim": 128,
            "qk_rope_head_dim": 64,
            "v_head_dim": 128,
        },
        "defaults": {
            "original_seq_len": 4096,
            "rope_theta": 10000.0,
            "rope_factor": 40,
            "beta_fast": 32,
            "beta_slow": 1,
            "mscale": 1.0,
            "max_seq_len": 16384,
        },
        "defaults_source": "deepseek-ai/DeepSeek-V3 inference/model.py, ModelArgs (max_seq_len = "
        "4096 * 4, original_seq_len = 4096, rope_theta = 10000.0, rope_factor = "
        "40, beta_fast = 32, beta_slow = 1, mscale = 1.), commit "
        "9b4e9788e4a3a731f7567338ed15d3ec549ce03b",
    },
    # The quoted copy leaves out the published file's layer_types; the alternation (sliding window
    # of 128 on even layers, full attention on odd layers) is in defaults.
    "gpt-oss-20b": {
        "label": "gpt-oss-20b",
        "source": "openai/gpt-oss-20b config.json, as quoted in Ascend/MindSpeed-LLM "
        "docs/en/pytorch/develop/fsdp2/model_adaptation.md (the 'example config.json for "
        "gpt-oss', 24 layers, 32 experts), commit "
        "e1e7bfdcabc04737f89c91ff9766b0d9ae215a69",
        "format": "config.json",
        "config": {
            "architectures": ["GptOssForCausalLM"],
            "head_dim": 64,
            "hidden_size": 2880,
            "initial_context_length": 4096,
            "max_position_embeddings": 131072,
            "model_type": "gpt_oss",
            "num_attention_heads": 64,
            "num_key_value_heads": 8,
            "num_hidden_layers": 24,
            "rope_scaling": {
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "factor": 32.0,
                "original_max_position_embeddings": 4096,
                "rope_type": "yarn",
                "truncate": False,
            },
            "rope_theta": 150000,
            "sliding_window": 128,
        },
    },
    "olmo-2-7b": {
        "label": "OLMo 2 7B (1124)",
        "source": "allenai/OLMo-2-1124-7B config.json, as copied (abridged) in mlc-ai/mlc-llm "
        "python/mlc_llm/model/model_preset.py ('olmo2_7b'), commit "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93",
        "format": "config.json",
        "config": {
            "architectures": ["Olmo2ForCausalLM"],
            "hidden_size": 4096,
            "max_position_embeddings": 4096,
            "model_type": "olmo2",
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "num_key_value_heads": 32,
            "rope_theta": 500000.0,
        },
    },
    # Dynamic NTK scaling: the base grows once a sequence passes max_position_embeddings.
    "internlm2.5-7b": {
        "label": "InternLM2.5 7B",
        "source": "internlm/internlm2_5-7b config.json, as copied in mlc-ai/mlc-llm "
        "python/mlc_llm/model/model_preset.py ('internlm2_5_7b'), commit "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93",
        "format": "config.json",
        "config": {
            "architectures": ["InternLM2ForCausalLM"],
            "hidden_size": 4096,
            "max_position_embeddings": 32768,
            "model_type": "internlm2",
            "num_attention_heads": 32,
            "num_hidden_layers": 32,
            "num_key_value_heads": 8,
            "rope_scaling": {"type": "dynamic", "factor": 2.0},
            "rope_theta": 1000000,
        },
    },
    # Learned absolute positions: a table of n_positions rows.
    "gpt-2": {
        "label": "GPT-2 (124M)",
        "source": "openai-community/gpt2 config.json, as copied in mlc-ai/mlc-llm "
        "python/mlc_llm/model/model_preset.py ('gpt2'), commit "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93",
        "format": "config.json",
        "config": {
            "architectures": ["GPT2LMHeadModel"],
            "model_type": "gpt2",
            "n_ctx": 1024,
            "n_embd": 768,
            "n_head": 12,
            "n_layer": 12,
            "n_positions": 1024,
        },
    },
    # ALiBi (attn_config.alibi). learned_pos_emb is true in the file; with alibi on, transformers'
    # MptModel adds only the ALiBi bias (build_mpt_alibi_tensor) and has no position-embedding
    # table.
    "mpt-7b-instruct": {
        "label": "MPT-7B Instruct",
        "source": "mosaicml/mpt-7b-instruct config.json ('The original config for the model'), as "
        "copied in mlc-ai/mlc-llm mlc_llm/relax_model/mpt/README.md, commit "
        "c96d074a69f012fc06500df8c6546cb6beef0c46",
        "format": "config.json",
        "config": {
            "architectures": ["MPTForCausalLM"],
            "attn_config": {"alibi": True, "alibi_bias_max": 8},
            "d_model": 4096,
            "learned_pos_emb": True,
            "max_seq_len": 2048,
            "model_type": "mpt",
            "n_heads": 32,
            "n_layers": 32,
        },
    },
    # Relative position buckets. The file omits relative_attention_max_distance: T5Config's default
    # (128) applies.
    "t5-small": {
        "label": "T5-small",
        "source": "google-t5/t5-small config.json, as copied in DANTA-HOJA/ADL2022_Final_Warmup "
        "report.md ('T5-small config'), commit c4754922083957034aac4ba7e02b68516270ff02",
        "format": "config.json",
        "config": {
            "architectures": ["T5WithLMHeadModel"],
            "d_kv": 64,
            "d_model": 512,
            "model_type": "t5",
            "n_positions": 512,
            "num_heads": 8,
            "num_layers": 6,
            "relative_attention_num_buckets": 32,
        },
    },
}

# The model the model view opens with: Llama 3.1 8B, the most read RoPE scaling of all.
DEFAULT_MODEL = "llama-3.1-8b"
