"""ordinate as pyspark.ml stages, for the Pipelines Spark users already write.

OrdinateModel is a Transformer that applies a saved ordinate model (any
kind) with ordinate.spark.transform; Ordinate is an Estimator that fits a
linear method (bvp, pca, lda) with ordinate.spark.fit and returns an
OrdinateModel. Both save and load through Spark's ML persistence: the
model file's bytes are saved beside the parameters (as a one-row Parquet
table, so any file system Spark writes to will do), and a loaded model
writes them to a private local file for the binary to read.

    from pyspark.ml import Pipeline
    from ordinate.spark.ml import Ordinate

    pipeline = Pipeline(stages=[Ordinate(method="lda", labelCol="label", idCol="id", keepCols=["label"])])
    fitted = pipeline.fit(df)                   # ordinate.spark.fit on the cluster
    fitted.write().overwrite().save("lda-pipeline")
    PipelineModel.load("lda-pipeline").transform(df)   # id, label, emb_0, emb_1
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import TYPE_CHECKING, Any, Optional, TypedDict, TypeVar, Union

from pyspark.ml import Estimator, Model
from pyspark.ml.param import Param, Params, TypeConverters
from pyspark.ml.util import (
    DefaultParamsReadable,
    DefaultParamsReader,
    DefaultParamsWritable,
    DefaultParamsWriter,
    MLReadable,
    MLReader,
    MLWritable,
    MLWriter,
)

from ordinate import spark as ospark
from ordinate.cli import OrdinateError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["Ordinate", "OrdinateModel"]


def _options(value: object) -> str:
    """The options Param: a dict of keyword options, kept as JSON text
    (ML persistence stores Params as JSON)."""
    if isinstance(value, str):
        value = json.loads(value)
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise TypeError(f"options = {value!r}: want a dict of keyword options")
    return json.dumps(value, sort_keys=True)


class _Columns(TypedDict):
    """The output's columns, as the keywords id and keep of ordinate.spark.transform."""

    id: Optional[str]
    keep: Optional[list[str]]


_S = TypeVar("_S", bound="_Shared")


class _Shared(Params):
    """The Params of both stages: the output's columns and the binary's
    options."""

    idCol: Param[str] = Param(Params._dummy(), "idCol", "row identity column, passed through (default: none)",
                              typeConverter=TypeConverters.toString)
    keepCols: Param[list[str]] = Param(Params._dummy(), "keepCols", "columns to pass through to the output",
                                       typeConverter=TypeConverters.toListString)
    options: Param[str] = Param(Params._dummy(), "options",
                                "the stage's other keyword options as a dict (JSON): ordinate apply's for OrdinateModel, "
                                "the method's for Ordinate", typeConverter=_options)

    def __init__(self) -> None:
        super().__init__()
        self._setDefault(keepCols=[], options="{}")

    def setIdCol(self: _S, value: str) -> _S:
        return self._set(idCol=value)

    def setKeepCols(self: _S, value: list[str]) -> _S:
        return self._set(keepCols=value)

    def setOptions(self: _S, value: Union[dict[str, Any], str]) -> _S:
        return self._set(options=value)

    def getOptions(self) -> dict[str, Any]:
        options: dict[str, Any] = json.loads(self.getOrDefault(self.options))
        return options

    def _columns(self) -> _Columns:
        keep = self.getOrDefault(self.keepCols)
        return {"id": self.getOrDefault(self.idCol) if self.isDefined(self.idCol) else None, "keep": keep or None}


class OrdinateModel(Model, _Shared, MLWritable, MLReadable["OrdinateModel"]):
    """A saved ordinate model as a Transformer: transform(df) is
    ordinate.spark.transform(df, modelPath, id=idCol, keep=keepCols,
    via=via, **options). modelPath is a model file on the driver (written
    with --model-out, or by Ordinate.fit)."""

    modelPath: Param[str] = Param(Params._dummy(), "modelPath", "the model file on the driver (--model-out)",
                                  typeConverter=TypeConverters.toString)
    via: Param[str] = Param(Params._dummy(), "via", "auto, expressions (affine models) or binary",
                            typeConverter=TypeConverters.toString)

    def __init__(self, modelPath: Optional[str] = None, idCol: Optional[str] = None, keepCols: Optional[list[str]] = None,
                 via: str = "auto", options: Union[dict[str, Any], str, None] = None) -> None:
        super().__init__()
        self._setDefault(via="auto")
        given = {"modelPath": modelPath, "idCol": idCol, "keepCols": keepCols, "via": via, "options": options}
        self._set(**{k: v for k, v in given.items() if v is not None})

    def setModelPath(self, value: str) -> OrdinateModel:
        return self._set(modelPath=value)

    def getModelPath(self) -> str:
        return self.getOrDefault(self.modelPath)

    def _transform(self, dataset: DataFrame) -> DataFrame:
        if not self.isDefined(self.modelPath):
            raise OrdinateError("OrdinateModel: set modelPath, the model file to apply")
        return ospark.transform(dataset, self.getModelPath(), via=self.getOrDefault(self.via), **self._columns(),
                                **self.getOptions())

    def write(self) -> _ModelWriter:
        return _ModelWriter(self)

    @classmethod
    def read(cls) -> _ModelReader:
        return _ModelReader(cls)


class _ModelWriter(MLWriter):
    """Saves an OrdinateModel: its Params (metadata/) and its model file's
    bytes (data/, one row of one binary column)."""

    def __init__(self, instance: OrdinateModel) -> None:
        super().__init__()
        self.instance = instance

    def saveImpl(self, path: str) -> None:
        model = self.instance.getModelPath()
        with open(model, "rb") as f:
            blob = f.read()
        DefaultParamsWriter.saveMetadata(self.instance, path, self.sparkSession,
                                         extraMetadata={"modelFile": os.path.basename(model), "modelBytes": len(blob)})
        self.sparkSession.createDataFrame([(blob,)], "model binary").coalesce(1).write.parquet(_join(path, "data"))


class _ModelReader(MLReader[OrdinateModel]):
    """Loads an OrdinateModel saved by _ModelWriter: the model file is
    written to a private local folder and modelPath set to it."""

    def __init__(self, cls: type[OrdinateModel]) -> None:
        super().__init__()
        self.cls = cls

    def load(self, path: str) -> OrdinateModel:
        metadata = DefaultParamsReader.loadMetadata(path, self.sparkSession)
        instance = self.cls()
        DefaultParamsReader.getAndSetParams(instance, metadata)
        rows = self.sparkSession.read.parquet(_join(path, "data")).collect()
        if len(rows) != 1 or len(rows[0][0]) != metadata.get("modelBytes"):
            raise OrdinateError(f"{path}: the saved model file is missing or damaged")
        local = os.path.join(tempfile.mkdtemp(prefix="ordinate-ml-", dir=ospark._private_root()),
                             metadata.get("modelFile") or "model.parquet")
        with open(local, "wb") as f:
            f.write(rows[0][0])
        instance._resetUid(metadata["uid"])
        return instance._set(modelPath=local)


def _join(path: str, name: str) -> str:
    """path/name for a local path or a URI (hdfs://…, s3a://…)."""
    return path.rstrip("/") + "/" + name


class Ordinate(Estimator[OrdinateModel], _Shared, DefaultParamsWritable, DefaultParamsReadable["Ordinate"]):
    """An Estimator of a linear ordinate method: fit(df) runs
    ordinate.spark.fit(df, method, label=labelCol, **options) (the
    partitions' statistics merged on the driver) and returns an
    OrdinateModel of the fitted model, which places rows with idCol and
    keepCols. method is bvp, pca or lda; options are the method's other
    keyword options (order, dims, features, standardize, shrinkage …)."""

    method: Param[str] = Param(Params._dummy(), "method", "bvp, pca or lda", typeConverter=TypeConverters.toString)
    labelCol: Param[str] = Param(Params._dummy(), "labelCol", "the class label column (bvp, lda; pca passes it through)",
                                 typeConverter=TypeConverters.toString)

    def __init__(self, method: Optional[str] = None, labelCol: Optional[str] = None, idCol: Optional[str] = None,
                 keepCols: Optional[list[str]] = None, options: Union[dict[str, Any], str, None] = None) -> None:
        super().__init__()
        given = {"method": method, "labelCol": labelCol, "idCol": idCol, "keepCols": keepCols, "options": options}
        self._set(**{k: v for k, v in given.items() if v is not None})

    def setMethod(self, value: str) -> Ordinate:
        return self._set(method=value)

    def setLabelCol(self, value: str) -> Ordinate:
        return self._set(labelCol=value)

    def _fit(self, dataset: DataFrame) -> OrdinateModel:
        if not self.isDefined(self.method):
            raise ValueError(f"Ordinate: set method, one of {', '.join(ospark.FIT_METHODS)}")
        options = self.getOptions()
        if self.isDefined(self.labelCol):
            options["label"] = self.getOrDefault(self.labelCol)
        folder = tempfile.mkdtemp(prefix="ordinate-fit-", dir=ospark._private_root())
        method = self.getOrDefault(self.method)
        path = ospark.fit(dataset, method, model_out=os.path.join(folder, f"{method}.model.parquet"), **options)
        cols = self._columns()
        model = OrdinateModel(modelPath=path, idCol=cols["id"], keepCols=cols["keep"])
        return model
