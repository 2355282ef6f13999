"""One runnable example of the guide (:class:`Example`) and the sections' Chinese titles."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Example:
    """One runnable example of the guide."""

    key: str
    title: str
    code: str
    expected: dict = field(default_factory=dict)
    note: str = ""
    atol: float = 1e-5  # the guide's printing precision

    def heading(self, lang: str = "en") -> str:
        """The section's title in ``lang`` ("en" or "zh")."""
        return TITLES_ZH[self.key] if lang == "zh" else self.title


TITLES_ZH = {
    "input": "输入求导",
    "get_all": "对所有输入求导（get_all=True）",
    "weight": "权重求导（get_by_list=True）",
    "sens": "梯度值缩放（sens_param=True）",
    "single": "单个输出元素的导数（out[0][0]）",
    "stop_gradient": "停止计算梯度",
    "sin2": "单输入单输出高阶导数（Sin 的二阶导数）",
    "mul2": "单输入多输出高阶导数（Mul 的二阶导数）",
    "cross": "多输入多输出高阶导数：dxdx、dxdy、dydx、dydy",
    "Jvp": "nn.Jvp（前向模式）",
    "Vjp": "nn.Vjp（反向模式）",
    "grad": "函数式 grad 与 grad_position",
    "grad_sens": "函数式 grad 与 sens_param",
    "jvp": "函数式 jvp",
    "vjp": "函数式 vjp",
}
