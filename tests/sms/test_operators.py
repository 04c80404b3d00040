import pytest

from sms.operators import operator_of


@pytest.mark.parametrize(
    ("number", "operator"),
    [
        ("+989121234567", "mci"),
        ("+989901234567", "mci"),
        ("09351234567", "irancell"),
        ("+989011234567", "irancell"),
        ("+989411234567", "irancell"),
        ("+989201234567", "rightel"),
        ("+989981234567", "other"),
        ("+442071234567", "other"),
        ("", "other"),
    ],
)
def test_the_operator_is_decided_by_the_prefix(number, operator):
    assert operator_of(number) == operator
