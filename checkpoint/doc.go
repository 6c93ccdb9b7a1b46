// Package checkpoint reads and writes model folders: the checkpoints a
// training run leaves, the weights it pushes to rollout servers, and the
// HuggingFace folders runs start from. Training, evaluation, sampling and
// serving all load a folder the one way Open loads it.
//
// # A checkpoint folder
//
// A checkpoint holds:
//
//   - config.json and model.safetensors: a HuggingFace Qwen2 checkpoint
//     (policy.SaveModel). In a LoRA run's GRPO checkpoints these are the
//     frozen base, with the adapters beside them in PEFT's layout:
//     adapter_config.json and adapter_model.safetensors, whose
//     base_model_name_or_path is the folder itself;
//   - tokenizer.json, tokenizer_config.json and generation_config.json (EOS
//     and the stop ids), and chat_template.jinja when the tokenizer's
//     folder has one (policy.TokenizerFileNames);
//   - train_config.yaml, the resolved run config;
//   - optimizer.safetensors, the AdamW moments (see OptimizerState; absent
//     where a run starts a fresh optimizer);
//   - state.json, where the run is (the trainer's record);
//   - manifest.json, written last, with the size and SHA-256 of every other
//     file (see Manifest).
//
// A folder holding only the model and tokenizer files (WriteWeights, or a
// HuggingFace download) loads the same way; without manifest.json it is
// accepted unverified, with a warning.
//
// # A run's checkpoints
//
// A run folder keeps its checkpoints under checkpoints/:
//
//   - warmstart-NNNNNN: the warm start after N of its steps;
//   - step-000000: the warm start done and evaluated, the frozen reference
//     of the KL term;
//   - step-NNNNNN: after N GRPO steps;
//   - latest: a text file naming the newest checkpoint folder.
//
// Save writes a checkpoint in a temporary folder (.tmp-*), syncs it and
// renames it into place, then rewrites latest, so a killed run leaves
// either the old checkpoint or the whole new one. A checkpoint found
// damaged on resume is moved aside as NAME.damaged (DamagedSuffix); List
// and Prune skip such folders, the temporary ones and NAME.old.
//
// # Verification
//
// Open, LoadModel, LoadTokenizer and FileSHA256 check the files they read
// against the folder's manifest. A file missing, truncated or changed since
// the manifest was written is refused with an *Error naming the folder and
// the file.
package checkpoint
