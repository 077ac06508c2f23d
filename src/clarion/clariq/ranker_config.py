"""The configuration of the ClariQ question ranker (:class:`~clarion.clariq.ranker.QuestionRanker`): everything that
defines a trained ranker, hashed into its model directory's name."""

from __future__ import annotations

from dataclasses import dataclass, replace

from clarion.bounds import SEED, Bound, check_fields
from clarion.errors import InputError
from clarion.rerank.features import FEATURES
from clarion.rerank.lambdamart import LambdaMART
from clarion.retrieve.dense import Encoder
from clarion.retrieve.finetune import FinetuneConfig
from clarion.retrieve.packaged import MPNET, PACKAGED

_BOUNDS = {
    "temperature": Bound("float", 0, open_low=True),
    "shortlist": Bound("int", 1),
    "folds": Bound("int", 2),
    "seed": SEED,
    "rounds": Bound("int", 1),
    "learning_rate": Bound("float", 0, open_low=True),
    "num_leaves": Bound("int", 2),
    "min_data_in_leaf": Bound("int", 1),
    "chunk": Bound("int", 1),
    "stages": Bound("int", 1),
    "generic_owners": Bound("int", 0),
    "finetune_epochs": Bound("float", 0),
    "finetune_lr": Bound("float", 0, open_low=True),
    "bag": Bound("int", 1),
    "lambdamart_seed": Bound("int", 0, optional=True),
    "finetune_seed": Bound("int", 0, optional=True),
}
"""What RankerConfig's numeric fields may hold."""


@dataclass(frozen=True)
class RankerConfig:
    """Everything that defines a trained ranker (hashed into the model directory name)."""

    temperature: float = 0.05
    shortlist: int = 100
    folds: int = 5
    seed: int = 13
    rounds: int = 150
    learning_rate: float = 0.1
    num_leaves: int = 15
    min_data_in_leaf: int = 50
    chunk: int = 64
    stages: int = 2
    """LambdaMARTs in sequence; stage ``s > 1`` adds competition and feedback features computed from
    stage ``s - 1``'s scores. With bags of 5 boosters, train CV R@20 / R@30 (means over 5 seed sets) 2 stages
    0.8577 / 0.8867, 3 stages 0.8538 / 0.8836, 4 stages 0.8516 / 0.8826 (one seed set); with one booster per
    stage 3 stages had won (docs/clariq_ranking.md)."""
    generic_owners: int = 2
    """Questions attached to at least this many labelled topics join every shortlist (0: none)."""
    finetune_epochs: float = 1.0
    """Epochs of fine-tuning MiniLM on the labelled (request, question) pairs before the first stage (per
    fold on the other folds' topics, so the features stay out of fold); 0 keeps the packaged model."""
    finetune_lr: float = 5e-5
    bag: int = 5
    """LightGBM boosters per LambdaMART stage (seeds ``seed``, ``seed + 1``, ...), their scores averaged: train
    CV Recall@30 0.8807 (one booster, mean over 8 seeds) -> 0.8836 (bags of 5, mean over 5 seed sets), with a
    smaller spread over seeds (docs/clariq_ranking.md, "Seeds and machines")."""
    lambdamart_seed: int | None = None
    """First LightGBM seed of each bag; ``None``: ``seed`` (which also assigns the folds)."""
    finetune_seed: int | None = None
    """Seed of the MiniLM fine-tunes (batch order, dropout); ``None``: ``seed``. It moves dev more than the
    LightGBM seeds do (docs/clariq_ranking.md, "Seeds and machines")."""
    encoders: tuple[str, ...] = (MPNET,)
    """Packaged encoders (zero-shot) beside the (fine-tuned) MiniLM: every dense cosine of the pipeline is the mean
    of theirs and MiniLM's (a composite encoder, :mod:`clarion.retrieve.dense`). all-mpnet-base-v2 raised train CV
    Recall@20 / @30 from 0.8580 / 0.8862 to 0.8690 / 0.9022 (means over three seed sets; docs/clariq_ranking.md)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "encoders", tuple(self.encoders))  # a list when read back from JSON
        unknown = [name for name in self.encoders if name not in PACKAGED]
        if unknown:
            raise InputError(f"unknown packaged encoder(s) {unknown}; choose from: {', '.join(PACKAGED)}")
        check_fields(self, _BOUNDS)

    def encoder(self, finetuned: str | None) -> Encoder:
        """The pipeline's encoder: :attr:`encoders` and then MiniLM (``finetuned``: its fine-tuned directory)."""
        return (*self.encoders, finetuned) if self.encoders else finetuned

    @classmethod
    def tiny(cls) -> RankerConfig:
        return cls(shortlist=40, folds=2, rounds=20, finetune_epochs=0.25, bag=2)

    @classmethod
    def starter(cls) -> RankerConfig:
        """The models a first conversation trains when none is cached: the packaged MiniLM as it is (no fine-tunes,
        no mpnet) and one booster per stage. Trained on ClariQ train in 52 s from an empty cache (2-core AMD EPYC)
        against 731 s; train CV Recall@20 / @30 0.8495 / 0.8813 against 0.8692 / 0.9014 (docs/conversation.md)."""
        return cls().as_starter()

    def as_starter(self) -> RankerConfig:
        """This configuration without what costs the training time: no fine-tunes, no packaged encoders beside MiniLM,
        one booster per stage."""
        return replace(self, finetune_epochs=0.0, encoders=(), bag=1)

    def finetune(self) -> FinetuneConfig:
        seed = self.seed if self.finetune_seed is None else self.finetune_seed
        return FinetuneConfig(epochs=self.finetune_epochs, learning_rate=self.finetune_lr, seed=seed)

    def lambdamart(self) -> LambdaMART:
        params = {
            "learning_rate": self.learning_rate,
            "num_leaves": self.num_leaves,
            "min_data_in_leaf": self.min_data_in_leaf,
            "seed": self.seed if self.lambdamart_seed is None else self.lambdamart_seed,
        }
        return LambdaMART(self.rounds, params, categorical=(FEATURES.index("form"),), bag=self.bag)
