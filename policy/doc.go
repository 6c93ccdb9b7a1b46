// Package policy holds the language model and its tokenizer.
//
// The model is a Qwen2-style decoder: token embedding, RMSNorm, rotary
// positions, grouped-query attention with q/k/v biases, a SwiGLU MLP and an
// LM head (tied to the embedding or not). All weights are float32 slices
// owned by Param values; two compute paths read the same slices:
//
//   - a gorgonia graph (the training path) that computes the log-probability
//     of given tokens under a causal mask and its gradient, and
//   - decoding with a KV cache (the sampling path), which decodes a batch
//     of sequences one token at a time.
//
// The decoder block is written once (block.go), forward and backward side
// by side: each layer of the training graph is one node that runs it
// (graph_block.go), and decoding runs its forward pass over the session's
// caches (sample.go).
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
// float32 one matrix at a time for each product, and FreezeBase16 does
// the same for the frozen base under LoRA adapters that train. A training graph is compiled
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
// Shape legend, the one the whole package's code and comments use:
//
//	N  rows, one token each: in training N = B·T, row b·T+t holding token
//	   t of sequence b; in decoding the tokens fed in one call, the
//	   sequences laid end to end
//	B  sequences of a training batch, padded to a power of two up to 8,
//	   to a multiple of 8 above
//	T  their padded length, a multiple of 16
//	S  sequences fed in one decoding call
//	P  positions a sequence holds (its key/value cache's rows)
//	R  rows of one chunk of the fused LM head
//	C  channels (hidden size)
//	H  query heads, K key/value heads, D head dim (C/H)
//	F  MLP width
//	V  vocab
//	r  the LoRA adapters' rank
package policy
