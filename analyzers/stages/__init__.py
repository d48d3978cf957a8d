"""The stages of issue 15: spec, contract and slice generation, and the LLM-free exporters."""
