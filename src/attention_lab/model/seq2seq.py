"""The recurrent encoder-decoder translation model (Sutskever et al. 2014; with attention, Bahdanau
et al. 2014 and Luong et al. 2015), a plain `nn.Module`; `build_model`, which builds the architecture the
config (`params`) names, and the check that its embedding tying fits the tokenizer. Shapes: see the
package notation."""

from __future__ import annotations

from torch import Tensor

from attention_lab.model.decoder import DECODERS, DecoderState
from attention_lab.model.encoder import Encoder
from attention_lab.model.encoder_decoder import EncoderDecoder, check_tying, xavier_init
from attention_lab.model.params import ModelParams
from attention_lab.model.transformer import TransformerSeq2Seq


class Seq2Seq(EncoderDecoder):
    """RNN encoder + attention decoder."""

    def __init__(self, params: ModelParams, src_vocab_size: int, tgt_vocab_size: int) -> None:
        super().__init__()
        check_tying(params.tie_embeddings, src_vocab_size, tgt_vocab_size)
        self.params = params
        self.encoder = Encoder(src_vocab_size, params.embed_size, params.hidden_size, params.num_layers,
                               params.dropout, params.rnn, params.bidirectional, params.io_dropout)
        self.decoder = DECODERS[params.decoder](
            vocab_size=tgt_vocab_size, embed_size=params.embed_size, hidden_size=params.hidden_size,
            key_size=params.key_size, num_layers=params.num_layers, dropout=params.dropout,
            io_dropout=params.io_dropout, rnn=params.rnn, attention=params.attention,
            attention_size=params.attention_size or params.hidden_size, max_src_len=params.max_source_tokens,
            tie_output=params.tie_embeddings != "none")
        self.apply(xavier_init)
        self.tie_embeddings(params.tie_embeddings)

    def encode(self, src: Tensor, src_len: Tensor) -> DecoderState:
        """src (B, S), src_len (B,) -> the decoder's initial state."""
        return self.decoder.init_state(*self.encoder(src, src_len), src_len)


def build_model(params: ModelParams, src_vocab_size: int, tgt_vocab_size: int) -> EncoderDecoder:
    """The architecture `params.arch` names, initialised."""
    cls = TransformerSeq2Seq if params.arch == "transformer" else Seq2Seq
    return cls(params, src_vocab_size, tgt_vocab_size)


def check_joint(params: ModelParams, joint: bool) -> None:
    """`tie_embeddings: all` reads source and target ids as rows of one table, which means the same
    piece only in one vocabulary for both languages: two separate vocabularies of the same size
    would share rows between unrelated English and French pieces."""
    if params.tie_embeddings == "all" and not joint:
        raise ValueError("tie_embeddings: 'all' needs a joint tokenizer (train_tokenizer.subword.joint: true), "
                         "got separate source and target vocabularies: set both, or tie_embeddings: output")
