def add(a, b):
    x = 1
    y = 2
    return a + b + x + y - 3
