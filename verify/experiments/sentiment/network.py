"""The network of docs/theory.md §5 in torch: its settings, the module, and its seeded initial weights.

Below the checkpoints (which regenerate a run's initial embedding to read its published weights)
and the training loop (:mod:`verify.experiments.sentiment.model`). torch is imported inside the
functions so that the rest of the package works without it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from verify.core.numbers import InputError

__all__ = ["TrainingSettings", "model_class", "build_model", "initial_embedding"]

# The types a recorded setting may have, by its field's annotation.
_SETTING_TYPES: dict[str, type | tuple[type, ...]] = {"bool": bool, "int": int, "float": (int, float)}


@dataclass(frozen=True)
class TrainingSettings:
    """Everything that defines a training run (recorded in the checkpoint; a resume must match)."""

    d: int = 2
    layers: int = 8
    beta: float = 1000.0
    learning_rate: float = 1e-3
    batch_size: int = 64
    gradient_clip: float = 5.0
    seed: int = 0
    alpha_init: float = 1.0
    weight_decay: float = 0.0
    # Training-time dropout on the embedded tokens Z^0 (a regulariser; evaluation, softmax and
    # hardmax alike, always uses the full embeddings). 0 is the paper's model.
    embedding_dropout: float = 0.0
    # False: alpha stays at alpha_init (the alpha study). True is the paper's model.
    train_alpha: bool = True
    # Attention over distinct tokens with log-multiplicity weights (see the module docstring).
    merged_tokens: bool = False
    # Length bucketing: pools of this many batches sorted by distinct tokens (0: off).
    bucket_batches: int = 0

    def __post_init__(self) -> None:
        for name in ("d", "batch_size"):
            if getattr(self, name) < 1:
                raise InputError(name, f"expected a positive integer, got {getattr(self, name)}")
        if self.layers < 0:
            raise InputError("layers", f"expected an integer >= 0 (0: no attention layer), got {self.layers}")
        if self.bucket_batches < 0:
            raise InputError("bucket_batches", f"expected an integer >= 0, got {self.bucket_batches}")
        for name in ("beta", "learning_rate", "gradient_clip", "alpha_init"):
            if not getattr(self, name) > 0:
                raise InputError(name, f"expected a positive number, got {getattr(self, name)}")
        if not 0 <= self.seed < 2 ** 64:  # what torch's and numpy's generators take
            raise InputError("seed", f"expected an integer in [0, 2^64), got {self.seed}")
        if not math.isfinite(_alpha_raw(self.alpha_init)):
            raise InputError("alpha_init", f"expected a positive number up to 709 (the initial alpha_raw, "
                                           f"softplus^-1 of it, must be finite), got {self.alpha_init}")
        if not 0 <= self.embedding_dropout < 1:
            raise InputError("embedding_dropout", f"expected a probability in [0, 1), got {self.embedding_dropout}")
        if self.merged_tokens and self.embedding_dropout > 0:
            # Dropout masks each position separately, so equal tokens no longer stay equal.
            raise InputError("embedding_dropout", "dropout on the tokens needs the attention over all positions "
                                                  "(merged tokens off)")

    @classmethod
    def from_record(cls, record: object, *, where: str = "settings") -> "TrainingSettings":
        """The settings a checkpoint recorded; missing ones take the defaults that reproduce earlier runs."""
        if not isinstance(record, dict):
            raise InputError(where, f"expected an object, got {type(record).__name__}")
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(str(k) for k in record if k not in known)
        if unknown:
            raise InputError(where, f"unknown {'setting' if len(unknown) == 1 else 'settings'} {', '.join(unknown)}")
        for name, value in record.items():
            expected = _SETTING_TYPES[str(known[name].type)]  # the annotation's text (postponed annotations)
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise InputError(f"{where}.{name}", f"expected a {known[name].type}, got {value!r}"[:200])
        try:
            return cls(**record)
        except InputError as error:
            raise InputError(f"{where}.{error.field}", error.message) from None


def _alpha_raw(alpha_init: float) -> float:
    """softplus^{-1}(alpha_init), the initial alpha_raw (inf when it does not fit a float)."""
    try:
        return math.log(math.expm1(alpha_init))
    except (OverflowError, ValueError):
        return math.inf


_MODEL_CLASS = None


def model_class():
    global _MODEL_CLASS
    if _MODEL_CLASS is None:
        import torch
        from torch import nn
        from torch.nn import functional as F

        class SentimentTransformer(nn.Module):
            """Embedding -> K shared softmax-attention layers (A = I) -> mean -> linear (logit)."""

            def __init__(self, vocab_size: int, d: int, *, layers: int, beta: float, alpha_init: float,
                         embedding_dropout: float = 0.0) -> None:
                super().__init__()
                self.layers = layers
                self.beta = beta
                self.embedding = nn.Embedding(vocab_size, d)
                # softplus^{-1}(alpha_init): alpha starts at alpha_init and can never reach 0.
                self.alpha_raw = nn.Parameter(torch.tensor(_alpha_raw(alpha_init), dtype=torch.float32))
                self.decoder = nn.Linear(d, 1)
                # Active only in train() mode; nn.Dropout draws from torch's seeded global generator.
                self.embedding_dropout = nn.Dropout(embedding_dropout)

            def alpha(self) -> "torch.Tensor":
                return F.softplus(self.alpha_raw)

            def forward(self, ids: "torch.Tensor", *, compiled: bool = False) -> "torch.Tensor":
                """``compiled``: the layers by :mod:`.attention_kernel` (the same function, every position weighted 1)."""
                z = self.embedding_dropout(self.embedding(ids))
                a = self.alpha()
                if compiled and self.layers:
                    from .attention_kernel import attention_stack
                    z = attention_stack(z, torch.zeros(z.shape[:2]), a, beta=self.beta, layers=self.layers)
                else:
                    for _ in range(self.layers):
                        attention = torch.softmax(self.beta * (z @ z.transpose(1, 2)), dim=-1)
                        z = (z + a * (attention @ z)) / (1 + a)
                return self.decoder(z.mean(dim=1)).squeeze(-1)

            def forward_merged(self, tokens: "torch.Tensor", counts: "torch.Tensor", *,
                               compiled: bool = False) -> "torch.Tensor":
                """The same function on distinct tokens: ``counts`` (B, m) multiplicities, 0 for unused slots.

                ``compiled``: the layers by :mod:`.attention_kernel` (the compiled training step).
                """
                z = self.embedding(tokens)
                log_counts = torch.log(counts)  # -inf for unused slots: weight 0
                a = self.alpha()
                if compiled and self.layers:
                    from .attention_kernel import attention_stack
                    z = attention_stack(z, log_counts, a, beta=self.beta, layers=self.layers)
                else:
                    for _ in range(self.layers):
                        attention = torch.softmax(self.beta * (z @ z.transpose(1, 2)) + log_counts[:, None, :], dim=-1)
                        z = (z + a * (attention @ z)) / (1 + a)
                pooled = (counts[..., None] * z).sum(dim=1) / counts.sum(dim=1, keepdim=True)
                return self.decoder(pooled).squeeze(-1)

        _MODEL_CLASS = SentimentTransformer
    return _MODEL_CLASS


def build_model(vocab_size: int, settings: TrainingSettings):
    """A freshly initialised model (torch's generator seeded with ``settings.seed``)."""
    import torch
    torch.manual_seed(settings.seed)
    model = model_class()(vocab_size, settings.d, layers=settings.layers, beta=settings.beta,
                           alpha_init=settings.alpha_init, embedding_dropout=settings.embedding_dropout)
    model.alpha_raw.requires_grad_(settings.train_alpha)
    return model


def initial_embedding(vocab_size: int, settings: TrainingSettings) -> np.ndarray:
    """The embedding :func:`build_model` starts from (float32), leaving torch's generator as it was."""
    import torch
    with torch.random.fork_rng(devices=[]):
        return build_model(vocab_size, settings).embedding.weight.detach().numpy().astype(np.float32, copy=True)
