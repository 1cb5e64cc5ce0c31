"""irtoolkit.classtest.instance_test: isinstance answered once per class."""

from __future__ import annotations

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType, f64, i32

from irtoolkit.classtest import ClassAnswers, instance_test


def test_answers_as_isinstance_for_classes_and_subclasses():
    is_const_or_return = instance_test(arith.ConstantOp, func.ReturnOp)
    const = arith.ConstantOp(IntegerAttr(1, IndexType()))
    assert is_const_or_return(const)
    assert is_const_or_return(func.ReturnOp())
    assert not is_const_or_return(arith.AddiOp(const, const))
    # a subclass (as irtoolkit's arith ops subclass xDSL's) answers as isinstance does
    class Subclass(arith.ConstantOp):
        pass

    assert is_const_or_return(Subclass.__new__(Subclass))

def test_answers_per_value_not_per_first_class_seen():
    is_tensor = instance_test(TensorType)
    assert is_tensor(TensorType(f64, [2]))
    assert not is_tensor(f64)
    assert not is_tensor(i32)
    assert is_tensor(TensorType(i32, [3, 4]))


def test_class_answers_as_isinstance_per_class():
    tensor_class = ClassAnswers(TensorType)
    assert tensor_class[type(TensorType(f64, [2]))]
    assert not tensor_class[type(f64)]
    assert not tensor_class[type(i32)]
    assert tensor_class[type(TensorType(i32, [3, 4]))]

    class Subclass(arith.ConstantOp):
        pass

    assert ClassAnswers(arith.ConstantOp)[Subclass]
    assert ClassAnswers(arith.ConstantOp, func.ReturnOp)[func.ReturnOp]
    assert not ClassAnswers(arith.ConstantOp)[func.ReturnOp]


def test_class_memo_answers_each_class_once():
    from irtoolkit.classtest import ClassMemo

    asked = []
    memo = ClassMemo(lambda cls: asked.append(cls) or cls.__name__)
    assert memo[int] == "int" and memo[int] == "int" and memo[str] == "str"
    assert asked == [int, str]
