"""The maths of pe_explorer.encoding against closed forms and published numbers."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pe_explorer import encoding

D_MODELS = [2, 4, 6, 16, 64, 128, 512, 2048]


def test_dot_product_one_apart_matches_published_value():
    # Published value for d_model = 512, float64.
    pe = encoding.encode_positions([0, 1, 40, 41], 512)
    assert pe[0] @ pe[1] == pytest.approx(249.102097827363, abs=1e-9)
    assert pe[2] @ pe[3] == pytest.approx(249.102097827363, abs=1e-9)


def test_dot_product_seventy_nine_apart_matches_published_value():
    pe = encoding.encode_positions([3, 82], 512)
    assert pe[0] @ pe[1] == pytest.approx(117.529000072021, abs=1e-9)
    assert encoding.offset_dot(79, 512) == pytest.approx(117.529000072021, abs=1e-9)


def test_first_position_for_d_model_4_matches_published_row():
    expected = [0.841471, 0.540302, 0.0099998, 0.999950]
    np.testing.assert_allclose(encoding.encode_positions([1], 4)[0], expected, atol=5e-7)


def test_position_zero_is_zeros_and_ones():
    row = encoding.positional_encoding(1, 8)[0]
    np.testing.assert_array_equal(row, [0, 1, 0, 1, 0, 1, 0, 1])


@pytest.mark.parametrize("d_model", D_MODELS)
def test_every_row_has_norm_sqrt_half_d_model(d_model):
    pe = encoding.positional_encoding(300, d_model)
    np.testing.assert_allclose(np.linalg.norm(pe, axis=1), math.sqrt(d_model / 2), rtol=1e-13)


@pytest.mark.parametrize("d_model", D_MODELS)
def test_first_wavelength_is_two_pi(d_model):
    assert encoding.wavelengths(d_model)[0] == pytest.approx(2 * math.pi, rel=1e-15)


def test_longest_wavelength_for_d_model_512():
    assert encoding.wavelengths(512)[-1] == pytest.approx(60611.477, abs=5e-4)


@pytest.mark.parametrize("d_model", D_MODELS)
def test_wavelengths_grow_geometrically(d_model):
    lengths = encoding.wavelengths(d_model, base=10000.0)
    ratios = lengths[1:] / lengths[:-1]
    np.testing.assert_allclose(ratios, 10000.0 ** (2 / d_model), rtol=1e-12)


def test_angular_frequencies_follow_the_formula():
    omega = encoding.angular_frequencies(8, base=100.0)
    np.testing.assert_allclose(omega, [1.0, 100**-0.25, 100**-0.5, 100**-0.75], rtol=1e-15)


def test_columns_are_sines_and_cosines_of_the_same_angle():
    pe = encoding.positional_encoding(50, 16)
    angle = np.arange(50)[:, None] * encoding.angular_frequencies(16)[None, :]
    np.testing.assert_allclose(pe[:, 0::2], np.sin(angle), atol=1e-15)
    np.testing.assert_allclose(pe[:, 1::2], np.cos(angle), atol=1e-15)


def test_concatenated_layout_is_a_column_permutation_of_interleaved():
    interleaved = encoding.positional_encoding(40, 12)
    concatenated = encoding.positional_encoding(40, 12, layout="concatenated")
    np.testing.assert_array_equal(concatenated[:, :6], interleaved[:, 0::2])
    np.testing.assert_array_equal(concatenated[:, 6:], interleaved[:, 1::2])


def test_float32_matrix_is_the_rounded_float64_matrix():
    pe32 = encoding.positional_encoding(64, 128, dtype=np.float32)
    assert pe32.dtype == np.float32
    np.testing.assert_allclose(pe32, encoding.positional_encoding(64, 128), atol=1e-7)


def test_encode_positions_agrees_with_matrix_rows_beyond_the_shown_length():
    rows = encoding.encode_positions([5, 63, 5000], 64)
    matrix = encoding.positional_encoding(64, 64)
    np.testing.assert_array_equal(rows[:2], matrix[[5, 63]])
    np.testing.assert_allclose(rows[2, 0::2], np.sin(5000 * encoding.angular_frequencies(64)))


@pytest.mark.parametrize("layout", encoding.LAYOUTS)
@pytest.mark.parametrize("d_model", [2, 4, 64, 512])
@pytest.mark.parametrize("offset", [-7, 0, 1, 3, 79, 1000])
def test_rotation_identity_holds_for_every_position(layout, d_model, offset):
    positions = np.arange(max(0, -offset), 400)
    before = encoding.encode_positions(positions, d_model, layout=layout)
    after = encoding.encode_positions(positions + offset, d_model, layout=layout)
    rotation = encoding.rotation_matrix(offset, d_model, layout=layout)
    assert np.abs(after - before @ rotation.T).max() <= 1e-12


@given(
    pos=st.integers(0, 2047),
    offset=st.integers(-2047, 2047),
    half=st.integers(1, 64),
)
def test_rotation_identity_property(pos, offset, half):
    pos = max(pos, -offset)
    d_model = 2 * half
    pair = encoding.encode_positions([pos, pos + offset], d_model)
    rotated = encoding.rotation_matrix(offset, d_model) @ pair[0]
    assert np.abs(pair[1] - rotated).max() <= 1e-12


def test_rotation_matrix_is_orthogonal():
    rotation = encoding.rotation_matrix(13, 32)
    np.testing.assert_allclose(rotation @ rotation.T, np.eye(32), atol=1e-14)


@pytest.mark.parametrize("d_model", [4, 64, 512])
def test_dot_product_matrix_is_toeplitz(d_model):
    pe = encoding.positional_encoding(200, d_model)
    gram = pe @ pe.T
    for k in range(-199, 200):
        diagonal = np.diagonal(gram, offset=k)
        assert np.abs(diagonal - encoding.offset_dot(k, d_model)).max() <= 1e-12


def test_offset_dot_accepts_arrays_and_is_even():
    k = np.arange(-50, 51)
    dots = encoding.offset_dot(k, 128)
    assert dots.shape == k.shape
    np.testing.assert_allclose(dots, dots[::-1], atol=1e-13)
    assert encoding.offset_dot(0, 128) == pytest.approx(64.0, abs=1e-13)


def test_offset_cosine_and_distance_match_compare():
    pe = encoding.encode_positions([11, 30], 256)
    result = encoding.compare(pe[0], pe[1])
    assert result.cosine == pytest.approx(encoding.offset_cosine(19, 256), abs=1e-13)
    assert result.distance == pytest.approx(encoding.offset_distance(19, 256), abs=1e-12)
    assert result.dot == pytest.approx(encoding.offset_dot(19, 256), abs=1e-12)


def test_compare_on_known_vectors():
    result = encoding.compare([3.0, 4.0], [4.0, 3.0])
    assert result.dot == 24.0
    assert result.cosine == pytest.approx(24 / 25, abs=1e-15)
    assert result.distance == pytest.approx(math.sqrt(2), abs=1e-15)


def test_offset_distance_at_zero_is_exactly_zero():
    assert encoding.offset_distance(0, 512) == 0.0


@pytest.mark.parametrize(
    ("call", "names"),
    [
        (lambda: encoding.angular_frequencies(7), ["d_model", "even", "7"]),
        (lambda: encoding.angular_frequencies(0), ["d_model", "even", "0"]),
        (lambda: encoding.angular_frequencies(-4), ["d_model", "-4"]),
        (lambda: encoding.angular_frequencies(4096), ["d_model", "2048", "4096"]),
        (lambda: encoding.angular_frequencies(8.0), ["d_model", "8.0"]),
        (lambda: encoding.angular_frequencies(True), ["d_model", "True"]),
        (lambda: encoding.wavelengths(8, base=1.0), ["base", "greater than 1", "1.0"]),
        (lambda: encoding.wavelengths(8, base=float("nan")), ["base", "finite", "nan"]),
        (lambda: encoding.wavelengths(8, base=float("inf")), ["base", "inf"]),
        (lambda: encoding.positional_encoding(0, 8), ["n_positions", "0"]),
        (lambda: encoding.positional_encoding(10**9, 8), ["n_positions", "2048", "1000000000"]),
        (lambda: encoding.positional_encoding(4, 8, layout="diagonal"), ["layout", "diagonal"]),
        (lambda: encoding.encode_positions([-3], 8), ["positions", "-3"]),
        (lambda: encoding.encode_positions([float("nan")], 8), ["positions", "nan"]),
        (lambda: encoding.encode_positions(["x"], 8), ["positions", "x"]),
        (lambda: encoding.encode_positions(range(20_000), 2048), ["cells", "20000 x 2048"]),
        (lambda: encoding.rotation_matrix(float("inf"), 8), ["offset", "inf"]),
        (lambda: encoding.offset_dot(float("nan"), 8), ["offset", "nan"]),
        (lambda: encoding.compare([1, 2], [1, 2, 3]), ["u and v", "same length"]),
        (lambda: encoding.compare([0, 0], [1, 2]), ["non-zero"]),
    ],
)
def test_bad_arguments_raise_value_error_naming_argument_rule_and_value(call, names):
    with pytest.raises(ValueError) as raised:
        call()
    for name in names:
        assert name in str(raised.value)
