#!/usr/bin/env python3
# A copy of ../shared/tools/make-tiny-vlm.py (the shared tools folder is not part of a CI checkout):
# scripts/llama-server.sh runs it to write the tiny random-weight model tests/real-server uses.
"""Write a tiny random-weight LLaVA-style VLM (text GGUF + mmproj GGUF).

The weights are random: the model "sees" the image (the real mtmd/CLIP path
runs) but its answers are noise.  Only for exercising a real llama-server
end to end (image_url parts, streaming, json_schema) without real weights.

usage: PYTHONPATH=<llama.cpp>/gguf-py python3 make-tiny-vlm.py <vocab.gguf> <outdir>
"""
import sys, os
import numpy as np
from gguf import GGUFReader, GGUFWriter, GGUFValueType

vocab_path, outdir = sys.argv[1], sys.argv[2]
os.makedirs(outdir, exist_ok=True)
rng = np.random.default_rng(0)

def rnd(*shape, dtype=np.float16, std=0.02):
    return (rng.standard_normal(shape, dtype=np.float32) * std).astype(dtype)

def ones(n):
    return np.ones((n,), dtype=np.float32)

def zeros(n):
    return np.zeros((n,), dtype=np.float32)

# ---------------- text model (llama arch) ----------------
E = lambda k, d: int(os.environ.get(k, d))
T_EMBD, T_FF, T_LAYERS, T_HEADS, T_CTX = E("T_EMBD", 64), E("T_FF", 128), E("T_LAYERS", 2), E("T_HEADS", 4), 4096
T_HEADS_KV = E("T_HEADS_KV", T_HEADS)
vocab = GGUFReader(vocab_path)
n_vocab = len(vocab.fields["tokenizer.ggml.tokens"].contents())

w = GGUFWriter(os.path.join(outdir, "fake-vlm-text.gguf"), "llama")
w.add_name("fake-vlm-text (random weights)")
w.add_context_length(T_CTX)
w.add_embedding_length(T_EMBD)
w.add_block_count(T_LAYERS)
w.add_feed_forward_length(T_FF)
w.add_head_count(T_HEADS)
w.add_head_count_kv(T_HEADS_KV)
w.add_rope_dimension_count(T_EMBD // T_HEADS)
w.add_layer_norm_rms_eps(1e-5)
w.add_vocab_size(n_vocab)
w.add_file_type(1)  # mostly f16
for name, field in vocab.fields.items():
    if not name.startswith("tokenizer."):
        continue
    types = field.types
    val = field.contents()
    if types[0] == GGUFValueType.ARRAY:
        w.add_key_value(name, val, GGUFValueType.ARRAY, sub_type=types[1])
    else:
        w.add_key_value(name, val, types[0])

w.add_tensor("token_embd.weight", rnd(n_vocab, T_EMBD))
w.add_tensor("output_norm.weight", ones(T_EMBD))
for i in range(T_LAYERS):
    p = f"blk.{i}."
    w.add_tensor(p + "attn_norm.weight", ones(T_EMBD))
    kv = T_EMBD // T_HEADS * T_HEADS_KV
    w.add_tensor(p + "attn_q.weight", rnd(T_EMBD, T_EMBD))
    w.add_tensor(p + "attn_k.weight", rnd(kv, T_EMBD))
    w.add_tensor(p + "attn_v.weight", rnd(kv, T_EMBD))
    w.add_tensor(p + "attn_output.weight", rnd(T_EMBD, T_EMBD))
    w.add_tensor(p + "ffn_norm.weight", ones(T_EMBD))
    w.add_tensor(p + "ffn_gate.weight", rnd(T_FF, T_EMBD))
    w.add_tensor(p + "ffn_up.weight", rnd(T_FF, T_EMBD))
    w.add_tensor(p + "ffn_down.weight", rnd(T_EMBD, T_FF))
w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()

# ---------------- mmproj (clip vision + llava mlp projector) ----------------
V_EMBD, V_FF, V_LAYERS, V_HEADS, IMG, PATCH = E("V_EMBD", 64), E("V_FF", 128), E("V_LAYERS", 3), E("V_HEADS", 4), E("IMG", 224), E("PATCH", 14)
n_patches = (IMG // PATCH) ** 2

m = GGUFWriter(os.path.join(outdir, "fake-vlm-mmproj.gguf"), "clip")
m.add_name("fake-vlm-mmproj (random weights)")
m.add_file_type(1)
m.add_bool("clip.has_vision_encoder", True)
m.add_bool("clip.has_llava_projector", True)
m.add_string("clip.projector_type", "mlp")
m.add_bool("clip.use_gelu", True)
m.add_uint32("clip.vision.image_size", IMG)
m.add_uint32("clip.vision.patch_size", PATCH)
m.add_uint32("clip.vision.embedding_length", V_EMBD)
m.add_uint32("clip.vision.feed_forward_length", V_FF)
m.add_uint32("clip.vision.projection_dim", T_EMBD)
m.add_uint32("clip.vision.block_count", V_LAYERS)
m.add_uint32("clip.vision.attention.head_count", V_HEADS)
m.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-5)
m.add_array("clip.vision.image_mean", [0.48145466, 0.4578275, 0.40821073])
m.add_array("clip.vision.image_std", [0.26862954, 0.26130258, 0.27577711])

m.add_tensor("v.patch_embd.weight", rnd(V_EMBD, 3, PATCH, PATCH))
m.add_tensor("v.position_embd.weight", rnd(n_patches, V_EMBD, dtype=np.float32))
m.add_tensor("v.pre_ln.weight", ones(V_EMBD)); m.add_tensor("v.pre_ln.bias", zeros(V_EMBD))
for i in range(V_LAYERS):
    p = f"v.blk.{i}."
    for t in ("attn_q", "attn_k", "attn_v", "attn_out"):
        m.add_tensor(p + t + ".weight", rnd(V_EMBD, V_EMBD))
        m.add_tensor(p + t + ".bias", zeros(V_EMBD))
    m.add_tensor(p + "ln1.weight", ones(V_EMBD)); m.add_tensor(p + "ln1.bias", zeros(V_EMBD))
    m.add_tensor(p + "ln2.weight", ones(V_EMBD)); m.add_tensor(p + "ln2.bias", zeros(V_EMBD))
    m.add_tensor(p + "ffn_up.weight", rnd(V_FF, V_EMBD)); m.add_tensor(p + "ffn_up.bias", zeros(V_FF))
    m.add_tensor(p + "ffn_down.weight", rnd(V_EMBD, V_FF)); m.add_tensor(p + "ffn_down.bias", zeros(V_EMBD))
m.add_tensor("mm.0.weight", rnd(T_EMBD, V_EMBD)); m.add_tensor("mm.0.bias", zeros(T_EMBD))
m.add_tensor("mm.2.weight", rnd(T_EMBD, T_EMBD)); m.add_tensor("mm.2.bias", zeros(T_EMBD))
m.write_header_to_file(); m.write_kv_data_to_file(); m.write_tensors_to_file(); m.close()
print("wrote", outdir)
