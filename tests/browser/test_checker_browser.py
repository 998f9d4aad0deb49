"""The checker view in the served app (issue 19): files uploaded through the file chooser,
as a learner does, each with its verdict or its message; no console error."""

import pytest
from checker_support import check_verdicts, upload_each

pytestmark = pytest.mark.browser


def test_each_uploaded_file_gets_its_verdict_or_its_message(open_app):
    page, log = open_app("?view=checker")
    shown = upload_each(page)
    assert check_verdicts(shown) == []
    assert log.relevant_errors() == []
