"""ordinate.spark.ml: the Transformer and the Estimator in pyspark.ml
Pipelines, saved and loaded through ML persistence, in local Spark."""

import numpy as np
import pyarrow as pa
import pytest
from pyspark.ml import Pipeline, PipelineModel
from pyspark.ml.feature import SQLTransformer

from ordinate import OrdinateError
from ordinate import spark as ospark
from ordinate.spark.ml import Ordinate, OrdinateModel

from test_transform import assert_same_bits, collect, data  # noqa: F401 - the data fixture


def test_model_is_transform(spark, data):
    df = spark.read.parquet(str(data["parts"]))
    model = OrdinateModel(modelPath=str(data["models"]["pca"]), idCol="id", keepCols=["label"])
    want = collect(ospark.transform(df, str(data["models"]["pca"]), id="id", keep=["label"]))
    assert_same_bits(collect(model.transform(df)), want)
    # Options reach apply: a t-SNE map placed with another perplexity.
    tsne = OrdinateModel(modelPath=str(data["models"]["tsne"]), idCol="id", options={"perplexity": 7})
    want = collect(ospark.transform(df, str(data["models"]["tsne"]), id="id", perplexity=7))
    assert_same_bits(collect(tsne.transform(df)), want)


def test_pipeline_fit_save_load(spark, data, tmp_path):
    df = spark.read.parquet(str(data["parts"])).repartition(5)
    # A stage the user already has before ordinate's.
    pick = SQLTransformer(statement="SELECT * FROM __THIS__ WHERE x1 > 0")
    est = Ordinate(method="lda", labelCol="label", idCol="id", keepCols=["label"], options={"dims": 2})
    pipeline = Pipeline(stages=[pick, est])
    fitted = pipeline.fit(df)
    model = fitted.stages[-1]
    assert isinstance(model, OrdinateModel)
    out = collect(fitted.transform(df))
    assert out.column_names == ["id", "label", "emb_0", "emb_1"]
    # The fitted model is ordinate.spark.fit's, applied by transform.
    want = collect(ospark.transform(pick.transform(df), model.getModelPath(), id="id", keep=["label"]))
    assert_same_bits(out, want)

    # Saved and loaded: the same bits, from a copy of the model file.
    fitted.write().overwrite().save(str(tmp_path / "fitted"))
    loaded = PipelineModel.load(str(tmp_path / "fitted"))
    again = loaded.stages[-1]
    assert again.getModelPath() != model.getModelPath()
    with open(again.getModelPath(), "rb") as a, open(model.getModelPath(), "rb") as b:
        assert a.read() == b.read()
    assert_same_bits(collect(loaded.transform(df)), out)

    # The unfitted pipeline too: its Params survive.
    pipeline.write().overwrite().save(str(tmp_path / "pipeline"))
    est2 = Pipeline.load(str(tmp_path / "pipeline")).getStages()[-1]
    assert (est2.getOrDefault("method"), est2.getOrDefault("labelCol"), est2.getOptions()) == ("lda", "label", {"dims": 2})


def test_model_save_load_alone(spark, data, tmp_path):
    df = spark.read.parquet(str(data["parts"]))
    m = OrdinateModel(modelPath=str(data["models"]["tsne"]), idCol="id", via="binary")
    m.save(str(tmp_path / "m"))
    back = OrdinateModel.load(str(tmp_path / "m"))
    assert (back.uid, back.getOrDefault("via"), back.getOrDefault("idCol")) == (m.uid, "binary", "id")
    assert_same_bits(collect(back.transform(df)), collect(m.transform(df)))


def test_ml_errors(spark, data):
    df = spark.read.parquet(str(data["parts"]))
    with pytest.raises(OrdinateError, match="set modelPath"):
        OrdinateModel(idCol="id").transform(df)
    with pytest.raises(ValueError, match="set method"):
        Ordinate(labelCol="label").fit(df)
    with pytest.raises(ValueError, match="bvp, pca, lda"):
        Ordinate(method="tsne").fit(df)
    with pytest.raises(TypeError, match="dict of keyword options"):
        Ordinate(method="pca", options=["dims", 3])
    with pytest.raises(TypeError, match="no option 'dimz'"):
        Ordinate(method="pca", options={"dimz": 3}).fit(df)
