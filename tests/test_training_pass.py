"""`trainer.compile`, checked on the CPU through dynamo's tracing with a backend that runs the traced
graphs as they are (inductor's C++ compiling would take a minute, AOTAutograd's tracing of the
backward half a minute): the compiled training pass gives the eager one's loss and gradients, one
set of graphs serves batches of every shape, attention runs between the graphs, checkpoints hold
the model once, and a compiler that fails is one error naming the key."""

import pytest
import torch
from conftest import TINY_TRAINING, TINY_TRANSFORMER
from test_gpu_step import pairs, transformer

from attention_lab.config import ConfigError, from_mapping
from attention_lab.data.batching import collate_pairs
from attention_lab.training import training_pass
from attention_lab.training.module import OptimParams, Seq2SeqModule
from attention_lab.tracking.store import MlflowParams
from attention_lab.training.params import Seq2SeqParams
from attention_lab.training.run import prepare

@pytest.fixture
def traced(monkeypatch) -> list[torch.fx.GraphModule]:
    """The graphs torch.compile hands its backend, run as traced."""
    graphs = []

    def backend(graph: torch.fx.GraphModule, example_inputs: list) -> object:
        graphs.append(graph)
        return graph.forward

    monkeypatch.setattr(training_pass, "BACKEND", backend)
    torch._dynamo.reset()
    yield graphs
    torch._dynamo.reset()


def losses_and_grads(module: Seq2SeqModule, batch: dict) -> tuple[torch.Tensor, ...]:
    module.zero_grad(set_to_none=True)
    loss, nll = module._losses(batch)
    loss.backward()
    return loss.detach(), nll.detach(), *(p.grad for p in module.parameters())


def test_compiled_training_gives_the_eager_losses_and_gradients_with_one_set_of_graphs_for_every_shape(traced):
    optim = OptimParams(label_smoothing=0.1)
    eager = Seq2SeqModule(transformer(seed=1).train(), optim, tokenizer=None)
    fast = Seq2SeqModule(transformer(seed=1).train(), optim, tokenizer=None, compile_training=True)
    keys = fast.state_dict().keys()
    for module in (eager, fast):
        module.on_train_start()
    assert fast.state_dict().keys() == keys  # the compiled pass holds the model, not a copy of its weights
    # The first batch's sides are as long as each other (S = T) by chance, the later ones' are not; one
    # is a single sentence.
    same = collate_pairs([(list(range(4, 4 + s)), list(range(4, 4 + t))) for s, t in ((7, 7), (3, 2), (5, 6))])
    assert same["src"].shape == same["tgt_in"].shape
    batches = [same] + [collate_pairs(pairs(count, seed=seed)) for seed, count in ((1, 5), (2, 1), (3, 12))]
    graphs = []
    for batch in batches:
        expected, got = losses_and_grads(eager, batch), losses_and_grads(fast, batch)
        for a, b in zip(expected, got, strict=True):
            torch.testing.assert_close(b, a, rtol=1e-6, atol=1e-7)
        graphs.append(len(traced))
    assert not [node for graph in traced for node in graph.graph.nodes if "scaled_dot_product" in str(node.target)]
    # Attention runs between the graphs, so the packing setting reaches it, and whatever layout its
    # contexts come in, the graphs after it serve them.
    eager.attention_packing = fast.attention_packing = 64
    for batch in (collate_pairs(pairs(9, seed=6)), collate_pairs(pairs(8, seed=7))):
        with torch.profiler.profile(record_shapes=True) as profile:
            got = losses_and_grads(fast, batch)
        for a, b in zip(losses_and_grads(eager, batch), got, strict=True):
            torch.testing.assert_close(b, a, rtol=1e-6, atol=1e-7)
        rows = [e.input_shapes[0][0] for e in profile.events() if e.name == "aten::scaled_dot_product_attention"]
        assert len(rows) >= 3 * TINY_TRANSFORMER["transformer"]["layers"] and max(rows) <= 4  # 2 or more a row
        graphs.append(len(traced))
    assert graphs[0] > 0 and set(graphs) == {graphs[0]}  # no compiling again for a new batch shape or layout


def test_a_compiler_that_fails_is_one_error_naming_the_key(monkeypatch):
    def backend(graph: torch.fx.GraphModule, example_inputs: list) -> object:
        raise RuntimeError("no working C++ compiler\nand more")

    monkeypatch.setattr(training_pass, "BACKEND", backend)
    torch._dynamo.reset()
    module = Seq2SeqModule(transformer(seed=1).train(), OptimParams(), tokenizer=None, compile_training=True)
    module.on_train_start()
    with pytest.raises(ConfigError, match=r"^train_seq2seq\.trainer\.compile: torch\.compile failed \(RuntimeError: "
                                          r"no working C\+\+ compiler\); set trainer\.compile: false$"):
        module._losses(collate_pairs(pairs(5, seed=1)))
    torch._dynamo.reset()


@pytest.mark.parametrize("compile_training", [False, True])
def test_the_stage_compiles_the_training_pass_when_its_params_say(paths, compile_training):
    config = {**TINY_TRAINING, "model": TINY_TRANSFORMER,
              "trainer": {**TINY_TRAINING["trainer"], "compile": compile_training, "cuda_graphs": False}}
    job = prepare(from_mapping(Seq2SeqParams, config, "train_seq2seq"), MlflowParams(enabled=False), paths)
    assert job.module.compile_training is compile_training


@pytest.mark.parametrize("settings, message", [
    ({"trainer": {"compile": True}},
     r"^train_seq2seq\.trainer\.compile: compiled passes .* set trainer\.cuda_graphs: false with trainer\.compile"),
    ({"model": {}, "trainer": {"compile": True, "cuda_graphs": False}},
     r"^train_seq2seq\.trainer\.compile: only a Transformer's training passes compile; model\.arch is 'rnn'$"),
])
def test_compile_is_refused_where_it_cannot_apply_naming_the_key(settings, message):
    config = {**TINY_TRAINING, "model": TINY_TRANSFORMER, **settings,
              "trainer": {**TINY_TRAINING["trainer"], **settings["trainer"]}}
    with pytest.raises(ConfigError, match=message):
        from_mapping(Seq2SeqParams, config, "train_seq2seq")
