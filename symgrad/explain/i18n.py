"""The words of a derivation, in English and Chinese (the guide exists in both)."""

from __future__ import annotations

PHRASES = {
    "en": {
        "grad_title": "Gradient of {fn}",
        "jvp_title": "Forward-mode derivative (Jvp) of {fn}",
        "taylor_title": "Higher derivatives along a path (Taylor mode) of {fn}",
        "laplacian_title": "Laplacian of {fn}",
        "first_order": "First-order results being differentiated again",
        "forward": "Forward result",
        "stop": "stop_gradient",
        "stop_note": "cut by stop_gradient: it adds to the value, its derivative is zero",
        "sens": "Sens: the weight of each output element",
        "kept": "kept",
        "dropped": "dropped",
        "weighted": "weighted",
        "sum": "(1) Sum formula",
        "derivative": "(2) Derivative formula",
        "value": "(3) Computation result",
        "tangent": "(1) Tangent v",
        "jvp": "(2) Jacobian-vector product",
        "path": "(1) The path x(t): its derivatives at t = 0",
        "taylor_formula": "(2) Derivatives along the path (one Taylor-mode sweep)",
        "laplacian_formula": "(1) Sum of the second derivatives over the inputs (one forward-Laplacian sweep)",
        "result": "Computation result",
        "intermediates": "Named intermediates, as named in the kernel's source (flat, the formulas would hold about {n} operations; closed_form(..., max_ops=None) flattens them)",
        "intermediates_long": "Named intermediates, as named in the kernel's source (the flat formula would be {n} characters long: the chain rule reads better; closed_form(..., max_ops=None) flattens it)",
        "sizes": "Operations per derivative order",
        "local": "The derivative, layer by layer (named intermediates, reusing the forward names)",
        "ops": "{n} tensor operations",
        "which": "(2) Which intermediate is which derivative",
    },
    "zh": {
        "grad_title": "{fn} 的梯度",
        "jvp_title": "{fn} 的前向模式微分（Jvp）",
        "taylor_title": "{fn} 沿路径的高阶导数（泰勒模式）",
        "laplacian_title": "{fn} 的拉普拉斯算子",
        "first_order": "再次求导的一阶导数结果",
        "forward": "前向结果",
        "stop": "停止计算梯度",
        "stop_note": "被 stop_gradient 截断：参与前向计算，但对梯度没有贡献",
        "sens": "缩放值 sens：每个输出元素的权重",
        "kept": "保留",
        "dropped": "舍去",
        "weighted": "加权",
        "sum": "（1）求和公式",
        "derivative": "（2）求导公式",
        "value": "（3）计算结果",
        "tangent": "（1）切向量 v",
        "jvp": "（2）雅可比向量积",
        "path": "（1）路径：x 在 t = 0 处对 t 的各阶导数",
        "taylor_formula": "（2）沿路径的各阶导数（一次泰勒模式前向扫描）",
        "laplacian_formula": "（1）对各输入的二阶导数之和（一次前向拉普拉斯扫描）",
        "result": "计算结果",
        "intermediates": "命名中间量，与内核源码中的名称相同（展开后公式约有 {n} 个运算；可用 closed_form(..., max_ops=None) 展开）",
        "intermediates_long": "命名中间量，与内核源码中的名称相同（展开后的公式长达 {n} 个字符，按链式法则逐步列出更易读；可用 closed_form(..., max_ops=None) 展开）",
        "sizes": "各阶导数的运算数",
        "local": "逐层求导（命名中间量，沿用前向计算的名称）",
        "ops": "{n} 个张量运算",
        "which": "（2）各导数对应的中间量",
    },
}


def phrase(key: str, lang: str, **fields) -> str:
    """The phrase ``key`` in ``lang`` ("en" or "zh")."""
    if lang not in PHRASES:
        raise ValueError(f"explain: unsupported language {lang!r}; supported: {', '.join(PHRASES)}")
    return PHRASES[lang][key].format(**fields)
