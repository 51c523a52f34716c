"""Stimulus sets from a lab's tables (issue 31): a folder of images with a CSV/TSV of labels,
the Fedorenko et al. (2010) run lists as the lab distributes them, and the 92 images of
Kriegeskorte et al. (2008) fetched pinned and sha256-checked (offline here: file:// sources)."""

import shutil

import numpy as np
import pandas as pd
import pytest
import scipy.io
from PIL import Image

from toponeuro import make_activations
from toponeuro._io.fetch import sha256sum
from toponeuro.exceptions import (
    AlignmentError,
    ChecksumError,
    DownloadError,
    InvalidDataError,
    MissingFileError,
    UnknownNameError,
)
from toponeuro.stimuli import (
    R92_FILES,
    R92_LABELS,
    _loaders,
    fetch_92_images,
    load_92_images,
    load_language_localizer,
    load_stimulus_table,
    pinned_sources,
    read_run_list,
)

NAMES = ["face1.png", "face2.png", "dog1.jpg", "car1.png"]
TABLE = ("file,category,human,face,animal,size\n"
         "face1.png,human face,1,1,1,2.5\n"
         "face2.png,human face,1,1,1,\n"
         "dog1.jpg,animal body,0,0,1,3\n"
         "car1.png,object,0,0,0,1\n")


def _folder(root, names=NAMES):
    root.mkdir(parents=True, exist_ok=True)
    for k, n in enumerate(names):
        (root / n).parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(np.full((6, 6, 3), 40 * k, np.uint8)).save(root / n)
    return root


# --------------------------------------------------------------------- image folder + table
def test_csv_table_gives_categories_and_label_coords(tmp_path):
    img = _folder(tmp_path / "images")
    (tmp_path / "labels.csv").write_text(TABLE)
    s = load_stimulus_table(tmp_path / "labels.csv", img)
    assert s.ids.tolist() == ["face1", "face2", "dog1", "car1"]  # table row order
    assert s.categories.tolist() == ["human face", "human face", "animal body", "object"]
    assert [p.name for p in s.items] == NAMES and s.name == "labels"
    assert s.labels == ("human", "face", "animal", "size")
    c = s.coords()
    assert c["face"][1].tolist() == [1, 1, 0, 0] and c["face"][1].dtype.kind == "i"
    np.testing.assert_array_equal(c["size"][1], [2.5, np.nan, 3.0, 1.0])  # blank -> NaN
    assert np.asarray(s.get(2))[0, 0, 0] == 80  # the right file behind each id
    # the labels travel to activations, and survive a selection
    acts = make_activations({"fc": np.zeros((4, 3))}, stimulus_ids=s.ids).assign_coords(c)
    assert acts.human.values.tolist() == [1, 1, 0, 0]
    assert s.select(["car1", "face1"]).coords()["animal"][1].tolist() == [0, 1]


def test_tsv_table_with_ids_booleans_and_bare_names(tmp_path):
    _folder(tmp_path / "set")
    (tmp_path / "set" / "stimuli.tsv").write_text(
        "Image\tkind\tsid\tanimate\tnote\n"
        "face1\tface\tA01\tTRUE\tfront\nface2\tface\tA02\ttrue\t\n"
        "dog1\tanimal\tA03\ttrue\tside\ncar1\tthing\tA04\tfalse\tx\n")
    s = load_stimulus_table(tmp_path / "set" / "stimuli.tsv", category_column="kind",
                            id_column="sid", labels=["animate", "note"], name="mine")
    assert s.ids.tolist() == ["A01", "A02", "A03", "A04"] and s.name == "mine"
    assert s.categories.tolist() == ["face", "face", "animal", "thing"]
    assert s.coords()["animate"][1].tolist() == [True, True, True, False]
    assert s.coords()["note"][1].tolist() == ["front", "", "side", "x"]
    assert [p.name for p in s.items] == NAMES  # names without suffix match by stem


def test_a_table_saved_by_excel(tmp_path):
    """Excel's "CSV UTF-8" starts with a byte-order mark; headers may carry spaces."""
    img = _folder(tmp_path / "img")
    (tmp_path / "excel.csv").write_bytes(
        "file, category ,face\r\nface1.png,visage,1\r\nface2.png,visage,1\r\n"
        "dog1.jpg,chien,0\r\ncar1.png,voiture,0\r\n".encode("utf-8-sig"))
    s = load_stimulus_table(tmp_path / "excel.csv", img)
    assert s.categories.tolist() == ["visage", "visage", "chien", "voiture"]
    assert s.coords()["face"][1].tolist() == [1, 1, 0, 0]


def test_missing_values_as_matlab_and_r_write_them(tmp_path):
    """A numeric label column with MATLAB's 'NaN' or R's 'NA' for a missing value was read
    as text ('1', 'NA', '3': categories, not numbers); a column of only 'NaN' too."""
    img = _folder(tmp_path / "img", NAMES[:3])
    (tmp_path / "t.csv").write_text("file,size,rating,none\n"
                                    "face1.png,1,2.5,NaN\nface2.png,NA,NaN,NaN\n"
                                    "dog1.jpg,3,n/a,nan\n")
    c = load_stimulus_table(tmp_path / "t.csv", img).coords()
    np.testing.assert_array_equal(c["size"][1], [1.0, np.nan, 3.0])
    np.testing.assert_array_equal(c["rating"][1], [2.5, np.nan, np.nan])
    assert np.isnan(c["none"][1].astype(float)).all()


def test_empty_file_or_id_cells_are_refused(tmp_path):
    """An empty id_column cell became the id '' silently; an empty file cell listed every
    file, good ones too, as 'not under' the folder."""
    img = _folder(tmp_path / "img", NAMES[:3])
    (tmp_path / "ids.csv").write_text("file,id\nface1.png,f1\nface2.png,\ndog1.jpg,d1\n")
    with pytest.raises(InvalidDataError, match=r"empty cells in column 'id' \(lines 3,"):
        load_stimulus_table(tmp_path / "ids.csv", img, id_column="id")
    (tmp_path / "files.csv").write_text("file,category\nface1.png,a\n,b\ndog1.jpg,c\n")
    with pytest.raises(InvalidDataError, match=r"empty cells in column 'file' \(lines 3,"):
        load_stimulus_table(tmp_path / "files.csv", img, extra_files="skip")
    # an empty category cell was the category '' (a contrast of its own, silently)
    (tmp_path / "cats.csv").write_text("file,category\nface1.png, face\nface2.png,\n"
                                       "dog1.jpg,dog\n")
    with pytest.raises(InvalidDataError, match=r"empty cells in column 'category' \(lines "
                                               r"3,.*category_column="):
        load_stimulus_table(tmp_path / "cats.csv", img)
    (tmp_path / "cats.csv").write_text("file,category\nface1.png, face\nface2.png,face\n"
                                       "dog1.jpg,dog\n")
    assert load_stimulus_table(tmp_path / "cats.csv", img).categories.tolist() == [
        "face", "face", "dog"]


def test_files_in_sub_folders(tmp_path):
    img = _folder(tmp_path / "img", ["faces/a.png", "cars/b.png"])
    (tmp_path / "bare.csv").write_text("filename,category\na.png,face\nb.png,car\n")
    assert load_stimulus_table(tmp_path / "bare.csv", img).ids.tolist() == ["a", "b"]
    (tmp_path / "rel.csv").write_text("path,category\nfaces/a.png,face\ncars/b.png,car\n")
    s = load_stimulus_table(tmp_path / "rel.csv", img)
    assert [p.parent.name for p in s.items] == ["faces", "cars"]


def test_extra_images_are_an_error_or_skipped(tmp_path):
    img = _folder(tmp_path / "img")
    (tmp_path / "t.csv").write_text("file,category\nface1.png,f\ndog1.jpg,a\n")
    with pytest.raises(AlignmentError, match=r"2 images under .* have no row in t.csv \(e.g. "
                                             r"\['car1.png', 'face2.png'\]\).*extra_files='skip'"):
        load_stimulus_table(tmp_path / "t.csv", img)
    assert len(load_stimulus_table(tmp_path / "t.csv", img, extra_files="skip")) == 2


def test_stimulus_table_bad_inputs(tmp_path):
    img = _folder(tmp_path / "img")
    t = tmp_path / "t.csv"
    with pytest.raises(MissingFileError, match="Stimulus table .* does not exist; pass a CSV or"
                                               " TSV"):
        load_stimulus_table(t, img)
    t.write_text(TABLE)
    with pytest.raises(MissingFileError, match="Image folder .* does not exist.*pass images="):
        load_stimulus_table(t, tmp_path / "nowhere")
    with pytest.raises(UnknownNameError, match="extra_files='no' is not one of 'error', 'skip'"):
        load_stimulus_table(t, img, extra_files="no")
    with pytest.raises(UnknownNameError, match="has no column 'catgory' for the categories; "
                                               "did you mean 'category'"):
        load_stimulus_table(t, img, category_column="catgory")
    with pytest.raises(UnknownNameError, match="has no column 'hmuan' for the labels; did you "
                                               "mean 'human'"):
        load_stimulus_table(t, img, labels=["hmuan"])
    t.write_text("name,category\nface1.png,f\n")
    with pytest.raises(UnknownNameError, match=r"has no file-name column \(looked for .*; it has"
                                               r" \['name', 'category'\]\); pass file_column="):
        load_stimulus_table(t, img)
    t.write_text("file,category\n")
    with pytest.raises(InvalidDataError, match="has no rows; give one row per image"):
        load_stimulus_table(t, img)
    t.write_text("file,category\nface1.png,f\nface1.png,g\n")
    with pytest.raises(AlignmentError, match=r"names 1 files more than once.*give each image "
                                             "one row"):
        load_stimulus_table(t, img)
    t.write_text("file,category\nface1.png,f\nzebra.png,z\n")
    with pytest.raises(MissingFileError, match=r"1 of the 2 files t.csv names are not under .*"
                                               r"\['zebra.png'\]\); fix the names in column "
                                               r"'file' or pass images="):
        load_stimulus_table(t, img, extra_files="skip")
    t.write_text("file,category,stimulus_id\nface1.png,f,x\n")
    with pytest.raises(InvalidDataError, match="clashes with a name the StimulusSet uses itself;"
                                               " pass id_column='stimulus_id'"):
        load_stimulus_table(t, img, extra_files="skip")
    sub = _folder(tmp_path / "sub", ["a/x.png", "b/x.png"])
    t.write_text("file,category\na/x.png,f\nb/x.png,g\n")
    with pytest.raises(AlignmentError, match=r"stimulus ids repeat.*give 'x'\. Add a column of "
                                             "unique ids and pass id_column="):
        load_stimulus_table(t, sub)
    t.write_text("file,category\nx.png,f\n")
    with pytest.raises(AlignmentError, match="occur in several folders.*write paths relative"):
        load_stimulus_table(t, sub)


# ------------------------------------------------------------------ Fedorenko run lists
HEADER = ",".join(f"stim{i}" for i in range(1, 15))
S1 = "JUST,THE,BAREST,SUGGESTION,OF,A,HEEL,IS,FOUND,ON,TEENAGE,PUMPS"
S2 = "TO,THE,DIRECTORS,THE,PROBLEM,APPEARED,A,MATTER,OF,INTRIGUE,OR,DIPLOMACY"
N1 = "POME,OY,REE,HOLILY,SHOURN,NE,SLEOMING,WHIMP,REE,RERE,OS,OFUKE"
N2 = "OT,MOMP,VO,DETLERENCE,FROT,MOGS,ELIBONCE,POLVED,RO,OP,UMMOSITE,COMBLISION"


def _run(path, rows, sep=","):
    """A run list as the lab distributes it: each condition numbered from 1, a fixation row."""
    lines = [HEADER] + rows
    path.write_text("\n".join(line.replace(",", sep) for line in lines) + "\n")
    return path


def test_run_list_as_distributed(tmp_path):
    p = _run(tmp_path / "langloc_fmri_run1_stim_set1.csv",
             [f"1,{S1},S", f"2,{S2},S", ",,,,,,,,,,,,,", f"1,{N1},N", f"2,{N2},N"])
    t = read_run_list(p)
    assert t.columns.tolist() == ["number", "sentence", "condition", "run"]
    assert t.condition.tolist() == ["S", "S", "N", "N"]  # the fixation row is left out
    assert t.sentence[0] == S1.replace(",", " ") and len(t.sentence[3].split()) == 12
    s = load_language_localizer(p)
    assert s.ids.tolist() == ["langloc-S-1", "langloc-S-2", "langloc-N-1", "langloc-N-2"]
    assert s.categories.tolist() == ["S", "S", "N", "N"] and s.kind == "text"
    assert s.get(1) == S2.replace(",", " ")
    assert s.metadata.run.unique().tolist() == ["langloc_fmri_run1_stim_set1"]
    assert s.metadata.condition_name.tolist()[-1] == "nonword lists"
    assert load_language_localizer(p, conditions=["N"]).ids.tolist() == [
        "langloc-N-1", "langloc-N-2"]
    # tab-separated too
    q = _run(tmp_path / "run1.tsv", [f"1,{S1},S", f"1,{N1},N"], sep="\t")
    assert load_language_localizer(q).ids.tolist() == ["langloc-S-1", "langloc-N-1"]


def test_several_run_lists_each_numbered_from_one(tmp_path):
    r1 = _run(tmp_path / "run1.csv", [f"1,{S1},S", f"1,{N1},N"])
    r2 = _run(tmp_path / "run2.csv", [f"1,{S2},S", f"1,{N2},N"])
    s = load_language_localizer([r1, r2])
    assert s.ids.tolist() == ["langloc-run1-S-1", "langloc-run1-N-1", "langloc-run2-S-1",
                              "langloc-run2-N-1"]
    assert s.get(2) == S2.replace(",", " ") and s.metadata.run.tolist()[2] == "run2"
    (tmp_path / "other").mkdir()
    again = _run(tmp_path / "other" / "run1.csv", [f"1,{S2},S"])
    with pytest.raises(AlignmentError, match="Two run lists have the same file name.*rename "
                                             "one"):
        load_language_localizer([r1, again])


def test_run_list_bad_inputs(tmp_path):
    short = _run(tmp_path / "short.csv", [f"3,{S1.rsplit(',', 1)[0]},,S"])
    with pytest.raises(InvalidDataError, match="trial '3' has fewer than 12 words in stim2.."
                                               "stim13"):
        read_run_list(short)
    bad = _run(tmp_path / "bad.csv", [f"1,{S1},X"])
    with pytest.raises(InvalidDataError, match=r"conditions \['X'\] in stim14; expected only"):
        load_language_localizer(bad)
    twice = _run(tmp_path / "twice.csv", [f"1,{S1},S", f"1,{S2},S"])
    with pytest.raises(AlignmentError, match="numbers two trials of one condition alike.*"
                                             "own number in stim1"):
        load_language_localizer(twice)
    other = tmp_path / "other.csv"
    other.write_text("file,category\na.png,f\n")
    with pytest.raises(InvalidDataError, match=r"is not a run list: expected the columns "
                                               r"stim1..stim14 \(item number, 12 words"):
        read_run_list(other)
    with pytest.raises(MissingFileError, match="does not exist; pass an existing csv"):
        load_language_localizer([tmp_path / "nope.csv"])
    latin = tmp_path / "latin1.csv"  # not UTF-8: the fix named is saving it so, not a sep=
    latin.write_bytes(f"{','.join(f'stim{i}' for i in range(1, 15))}\n1,{S1},S\n"
                      .replace("HEEL", "H\u00c9EL").encode("latin-1"))
    with pytest.raises(InvalidDataError, match=r"save it as UTF-8 CSV \(comma\) or TSV "
                                               r"\(tab\)\.$") as err:
        read_run_list(latin)
    assert "sep=" not in str(err.value)


@pytest.mark.shared
def test_the_shared_localizer_csv_is_not_taken_for_a_run_list(langloc_csv):
    s = load_language_localizer(langloc_csv)
    assert len(s) == 640 and s.ids[0].startswith("langloc-") and "-S-" not in s.ids[0]


# ---------------------------------------------------------------- the 92 images: format
def _mini_92(path, n=4):
    """A file in the layout of rsatoolbox's Kriegeskorte_Neuron2008_supplementalData.mat."""
    objs = np.zeros((1, n), dtype=[(f, object) for f in ("category", *R92_LABELS, "image")])
    cats = ["human face", "nonhuman face", "natural inanimate", "artificial inanimate"]
    for k in range(n):
        img = np.full((5, 5, 3), 10 * k, np.uint8)
        objs[0, k] = (cats[k % 4], np.uint8(k < 2), np.uint8(k < 2), np.uint8(k < 2),
                      np.uint8(k != 3), img)
    scipy.io.savemat(path, {"stimuli_92objs": objs, "categoryLabels": np.array(["x"])})
    return path


def test_load_92_images_reads_the_mat_layout(tmp_path):
    p = _mini_92(tmp_path / R92_FILES["stimuli"])
    s = load_92_images(p)
    assert s.ids.tolist() == ["img01", "img02", "img03", "img04"]
    assert s.categories.tolist()[:2] == ["human face", "nonhuman face"]
    assert s.coords()["face"][1].tolist() == [1, 1, 0, 0]
    assert s.labels == R92_LABELS and np.asarray(s.get(2))[0, 0, 0] == 20
    assert load_92_images(tmp_path).ids.tolist() == s.ids.tolist()  # the folder works too
    # path=None: the local copy <cache>/r92 is used before any download
    local = tmp_path / "cache" / "r92"
    local.mkdir(parents=True)
    shutil.copy(p, local / R92_FILES["stimuli"])
    assert len(load_92_images(cache_dir=tmp_path / "cache")) == 4


def test_load_92_images_bad_inputs(tmp_path):
    with pytest.raises(MissingFileError, match="does not exist; pass the file "
                                               "Kriegeskorte_Neuron2008_supplementalData.mat"):
        load_92_images(tmp_path / "nope.mat")
    scipy.io.savemat(tmp_path / "other.mat", {"x": np.zeros(3)})
    with pytest.raises(InvalidDataError, match="has no variable 'stimuli_92objs'; expected "
                                               "rsatoolbox's demos/92imageData"):
        load_92_images(tmp_path / "other.mat")


# --------------------------------------------------- the 92 images: the pinned download
def test_the_92_image_files_are_pinned():
    t = pinned_sources("rsagroup/rsatoolbox")
    assert sorted(t.path.str.rsplit("/", n=1).str[-1]) == sorted(R92_FILES.values())
    assert t.commit.nunique() == 1 and t.sha256.str.len().eq(64).all()
    assert t.path.str.startswith("demos/92imageData/").all()


def _serve(tmp_path, monkeypatch, files):
    """Serve ``{file name: bytes source path}`` as rsatoolbox's pinned paths over file://."""
    rows = pinned_sources("rsagroup/rsatoolbox")
    for r in rows.itertuples():
        name = r.path.rsplit("/", 1)[-1]
        if name in files:
            target = tmp_path / "repo" / r.repo / r.commit / r.path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(files[name], target)
    monkeypatch.setattr(_loaders, "_RAW",
                        (tmp_path / "repo").as_uri() + "/{repo}/{commit}/{path}")
    return rows


def test_fetch_92_images_rejects_a_file_with_the_wrong_sha256(tmp_path, monkeypatch):
    fake = _mini_92(tmp_path / "fake.mat")
    _serve(tmp_path, monkeypatch, {R92_FILES["stimuli"]: fake, R92_FILES["brain_rdms"]: fake})
    with pytest.raises(ChecksumError, match=r"sha256 is [0-9a-f]{64}, expected "
                                            r"06f21214399a5d43.*download it again"):
        fetch_92_images(cache_dir=tmp_path / "cache")
    assert not list((tmp_path / "cache").rglob("*.mat"))  # nothing unverified left in place


def test_fetch_92_images_offline_names_the_address_and_where_to_put_a_copy(tmp_path,
                                                                           monkeypatch):
    _serve(tmp_path, monkeypatch, {})  # the 'server' holds nothing
    with pytest.raises(DownloadError, match=r"(?s)92imageData/Kriegeskorte_Neuron2008_"
                                            r"supplementalData.mat.*by hand.*put it at"):
        fetch_92_images(cache_dir=tmp_path / "cache")


@pytest.mark.shared
def test_fetch_92_images_verifies_the_real_files(r92_dir, tmp_path, monkeypatch):
    r92 = r92_dir
    rows = _serve(tmp_path, monkeypatch, {n: r92 / n for n in R92_FILES.values()})
    paths = fetch_92_images(cache_dir=tmp_path / "cache")
    assert set(paths) == {"stimuli", "brain_rdms"}
    for role, p in paths.items():
        assert p.name == R92_FILES[role] and str(p).startswith(str(tmp_path / "cache"))
        assert sha256sum(p) == rows.set_index(rows.path.str.rsplit("/", n=1).str[-1]).loc[
            p.name, "sha256"]
    # a second call uses the verified copies, even with the source gone
    shutil.rmtree(tmp_path / "repo")
    assert fetch_92_images(cache_dir=tmp_path / "cache") == paths


@pytest.mark.shared
def test_real_92_images_and_a_table_of_them(r92_dir, tmp_path):
    """The real set: 92 images in 6 categories (counts as the file's own categoryVectors:
    natObj 23, artiObj 21), flags as labels; written out as a
    flat folder with a CSV of categories and flags (a lab's usual layout), the table loader
    gives the same ids, categories and labels."""
    s = load_92_images(r92_dir)
    assert len(s) == 92 and np.asarray(s.get(0)).shape == (175, 175, 3)
    counts = pd.Series(s.categories).value_counts().to_dict()
    assert counts == {"human bodypart": 12, "human face": 12, "nonhuman bodypart": 12,
                      "nonhuman face": 12, "natural inanimate": 23, "artificial inanimate": 21}
    c = s.coords()
    assert sum(c["face"][1]) == 24 and sum(c["human"][1] * c["face"][1]) == 12
    folder = tmp_path / "r92"
    folder.mkdir()
    for i, sid in enumerate(s.ids):
        s.get(i).save(folder / f"{sid}.png")
    table = s.metadata[["stimulus_id", "category", *R92_LABELS]].rename(
        columns={"stimulus_id": "file"})
    table["file"] = table["file"] + ".png"
    table.to_csv(folder / "labels.csv", index=False)
    t = load_stimulus_table(folder / "labels.csv", extra_files="error")
    assert t.ids.tolist() == s.ids.tolist() and t.categories.tolist() == s.categories.tolist()
    for k in R92_LABELS:
        assert t.coords()[k][1].tolist() == c[k][1].tolist()
    np.testing.assert_array_equal(np.asarray(Image.open(t.items[5])), np.asarray(s.get(5)))


def test_localizer_csv_ids_are_its_index_cells_as_written(tmp_path):
    """Index cells '001', '010' became ids langloc-1, langloc-10 (read as numbers); a blank
    index cell gave the id 'langloc-'; an empty sentence became an item '' silently."""
    p = tmp_path / "items.csv"
    p.write_text("item,sentence,condition\n001,the dog ran,S\n010,blick florp,n \n")
    s = load_language_localizer(p)
    assert s.ids.tolist() == ["langloc-001", "langloc-010"]
    assert s.categories.tolist() == ["S", "N"]  # written as the run lists are read
    p.write_text("item,sentence,condition\n1,the dog ran,S\n,blick florp,N\n")
    with pytest.raises(InvalidDataError, match=r"empty cells in column 'item' \(lines 3"):
        load_language_localizer(p)
    p.write_text("item,sentence,condition\n1,,S\n2,blick florp,N\n")
    with pytest.raises(InvalidDataError, match=r"empty cells in column 'sentence'"):
        load_language_localizer(p)
    p.write_text("item,sentence,condition\n1,a b,S\n2,c d,S\n1,e f,N\n")
    with pytest.raises(AlignmentError, match=r"column 'item' \(1\).*number every item"):
        load_language_localizer(p)


def test_localizer_missing_condition_or_no_file_is_refused(tmp_path):
    """conditions=['S', 'N'] on a file without N returned the S items only, silently; an
    empty list of run lists stopped with IndexError."""
    p = tmp_path / "items.csv"
    p.write_text("item,sentence,condition\n1,the dog ran,S\n2,the cat sat,S\n")
    with pytest.raises(InvalidDataError, match=r"No items of condition N.*conditions="):
        load_language_localizer(p, conditions=["S", "N"])
    run = _run(tmp_path / "run1.csv", [f"1,{S1},S", f"2,{S2},S"])
    with pytest.raises(InvalidDataError, match=r"No items of condition N in the run lists"):
        load_language_localizer(run, conditions=["S", "N"])
    with pytest.raises(InvalidDataError, match=r"path= is an empty list"):
        load_language_localizer([])


def test_a_tsv_saved_as_csv_is_split_on_tabs(tmp_path):
    """A tab-separated localizer saved as ``.csv`` was split on commas: one column, so
    "lacks columns ['condition', 'sentence']"; every table loader reads the header now."""
    items = tmp_path / "items.csv"
    items.write_text("\tsentence\tcondition\n0\tthe dog, the cat ran\tS\n1\tblick florp\tN\n")
    s = load_language_localizer(items)
    assert s.ids.tolist() == ["langloc-0", "langloc-1"] and s.categories.tolist() == ["S", "N"]
    assert s.get(0) == "the dog, the cat ran"  # a comma inside a cell stays in it
    # a comma-separated file named .tsv, and a stimulus table with tabs named .csv
    items.with_suffix(".tsv").write_text(',sentence,condition\n0,"a\tb",S\n')
    assert load_language_localizer(items.with_suffix(".tsv")).get(0) == "a\tb"
    root = _folder(tmp_path / "imgs")
    (root / "labels.csv").write_text(TABLE.replace(",", "\t"))
    t = load_stimulus_table(root / "labels.csv")
    assert t.categories.tolist() == ["human face", "human face", "animal body", "object"]
    # sep= given wins over the header; a header it leaves in one column names the real
    # separator (before: "no file-name column", advice about the wrong problem; issue 45)
    with pytest.raises(InvalidDataError, match=r"header is separated by '\\t' \(tab\)\. "
                                               r"Pass sep='\\t'"):
        load_stimulus_table(root / "labels.csv", sep=",")
    assert load_stimulus_table(root / "labels.csv", sep="\t").ids.tolist() == t.ids.tolist()
