// Package policy holds the language model and its tokenizer.
//
// The model is a Qwen2-style decoder: token embedding, RMSNorm, rotary
// positions, grouped-query attention with q/k/v biases, a SwiGLU MLP and an
// LM head (tied to the embedding or not). All weights are float32 slices
// owned by Param values; two compute paths read the same slices:
//
//   - a gorgonia graph (the training path) that computes the log-probability
//     of given tokens under a causal mask and its gradient, and
//   - plain Go with a KV cache (the sampling path) that decodes a batch of
//     sequences one token at a time.
//
// Tests prove that both paths give the same per-token log-probs.
//
// Both paths compute through the model's backend (package policy/backend):
// every matrix product and fused kernel is a backend call. DefaultBackend
// chooses it once per process: ARTIST_BACKEND when set, else OpenBLAS
// where libopenblas.so.0 is installed (loaded at run time, no cgo), else
// pure Go, whose arithmetic is bit for bit that of earlier versions
// except for the few-row decoding kernel of large weight matrices.
//
// Memory: a model holds no gradient buffers until it first computes
// gradients, so models used only for inference (sampling, eval, serve,
// the KL reference) cost their weights alone; Freeze16 (or LoadModel16)
// keeps a forward-only model's layer weights in bfloat16, widened to
// float32 one matrix at a time for each product. A training graph is compiled
// per padded batch shape with a static memory plan (kernels whose outputs
// are never needed at the same time write into one buffer, allocated
// outside the Go heap and unmapped when the graph closes), and a model
// keeps the graphs of its recent shapes only up to its graph cache bound
// (Model.SetGraphCacheBytes).
//
// Weights load and save as safetensors with HuggingFace tensor names next to
// a config.json with HuggingFace keys, so a Qwen2 checkpoint directory is a
// policy directory. Tokenizers load from tokenizer.json; Qwen2.5's encodes
// exactly as its reference implementation does (tested on a corpus of over
// 2,000 strings). Chat templates render in package chat.
//
// Shape legend used in the model code:
//
//	B batch, T tokens, C channels (hidden size), H query heads,
//	K key/value heads, D head dim (C/H), F MLP width, V vocab.
package policy
