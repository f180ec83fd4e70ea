"""The Dask path on a LocalCluster of 2 worker processes: the same rows as a single process."""

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import warpsight
import warpsight.dask

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def test_per_kernel_equals_single_process(client, h100_raw):
    single = warpsight.analyze(h100_raw)
    batch = warpsight.dask.analyze(h100_raw, client=client, partitions=3)
    assert_frame_equal(batch, single, check_exact=False)


def test_per_launch_equals_single_process(client, h100_raw):
    single = warpsight.analyze(h100_raw, per="launch")
    batch = warpsight.dask.analyze(h100_raw, client=client, per="launch")
    assert_frame_equal(batch, single, check_exact=False)


def test_read_and_lazy_frames(client, h100_raw):
    assert_frame_equal(warpsight.dask.read(h100_raw, client=client), warpsight.read(h100_raw))
    lazy = warpsight.dask.analyze(h100_raw, client=client, compute=False)
    assert len(lazy.compute()) == warpsight.analyze(h100_raw).height


def test_a_failing_file_is_reported_and_the_others_complete(client, h100_raw, tmp_path):
    broken = tmp_path / "broken.ncu-raw.csv"
    broken.write_bytes(b"\x00\x01 not an export")
    with pytest.raises(warpsight.dask.BatchError) as caught:
        warpsight.dask.analyze([*map(str, h100_raw), str(broken)], client=client)
    assert [path for path, _ in caught.value.failures] == [str(broken)]
    assert "error:" in caught.value.failures[0][1]
    assert_frame_equal(caught.value.partial, warpsight.analyze(h100_raw), check_exact=False)


def test_predict_equals_single_process(client, h100_raw):
    single = warpsight.predict(h100_raw, on="A100 SXM4 80GB")
    batch = warpsight.dask.predict(h100_raw, on="A100 SXM4 80GB", client=client, partitions=3)
    assert batch.height > 1
    assert_frame_equal(batch, single, check_exact=False)
    top = warpsight.dask.predict(h100_raw, on="A100 SXM4 80GB", client=client, top=2, sort="speedup")
    assert_frame_equal(top, warpsight.predict(h100_raw, on="A100 SXM4 80GB", top=2, sort="speedup"),
                       check_exact=False)


def test_predict_on_an_unknown_device_raises(client, h100_raw):
    with pytest.raises(warpsight.Error) as caught:
        warpsight.dask.predict(h100_raw, on="no such GPU", client=client)
    with pytest.raises(type(caught.value)) as single:
        warpsight.predict(h100_raw, on="no such GPU")
    assert str(caught.value) == str(single.value)


def test_predict_lazily_and_with_a_failing_file(client, h100_raw, tmp_path):
    on = "NVIDIA A100-SXM4-80GB"
    single = warpsight.predict(h100_raw, on=on)
    lazy = warpsight.dask.predict(h100_raw, on=on, client=client, compute=False)
    assert lazy.compute()["kernel"].tolist() == single["kernel"].to_list()
    broken = tmp_path / "broken.ncu-raw.csv"
    broken.write_bytes(b"\x00\x01 not an export")
    with pytest.raises(warpsight.dask.BatchError) as caught:
        warpsight.dask.predict([*map(str, h100_raw), str(broken)], on=on, client=client)
    assert [path for path, _ in caught.value.failures] == [str(broken)]
    assert_frame_equal(caught.value.partial, single, check_exact=False)


def test_tasks_are_runs_of_consecutive_files(tmp_path, monkeypatch):
    sizes = [10, 10, 10, 50, 10, 10]
    files = []
    for index, size in enumerate(sizes):
        path = tmp_path / f"f{index}"
        path.write_bytes(b"x" * size)
        files.append(str(path))
    monkeypatch.setattr(warpsight.dask, "_MIN_TASK_BYTES", 1)
    tasks = warpsight.dask._tasks(files, workers=2)
    # A share of ceil(100 / 4) = 25 bytes: two small files a task, the large file alone.
    assert [(first, [files.index(f) for f in chunk]) for first, chunk in tasks] == [
        (0, [0, 1]), (2, [2]), (3, [3]), (4, [4, 5])]
    monkeypatch.setattr(warpsight.dask, "_MIN_TASK_BYTES", 4 << 20)
    assert warpsight.dask._tasks(files, workers=2) == [(0, files)]


def test_many_tasks_equal_single_process(client, h100_raw, tmp_path, monkeypatch):
    monkeypatch.setattr(warpsight.dask, "_MIN_TASK_BYTES", 1)
    files = [str(path) for path in h100_raw]
    assert len(warpsight.dask._tasks(files, workers=2)) > 1
    assert_frame_equal(warpsight.dask.analyze(files, client=client), warpsight.analyze(files),
                       check_exact=False)
    assert_frame_equal(warpsight.dask.analyze(files, client=client, per="launch"),
                       warpsight.analyze(files, per="launch"), check_exact=False)
    broken = tmp_path / "broken.ncu-raw.csv"
    broken.write_bytes(b"\x00\x01 not an export")
    with pytest.raises(warpsight.dask.BatchError) as caught:
        warpsight.dask.analyze([*files[:2], str(broken), *files[2:]], client=client)
    assert [path for path, _ in caught.value.failures] == [str(broken)]
    assert_frame_equal(caught.value.partial, warpsight.analyze(files), check_exact=False)
