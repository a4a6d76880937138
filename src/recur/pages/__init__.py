"""What each page of the book glues: one module per page, each function returning a
dict {glue key: value} that the notebook glues in one hidden cell, so that every number
and sentence the prose reads comes from code the tests see."""
