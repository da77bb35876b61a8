"""Shapes for workload.py's worker pool (a second source file in the stacks)."""
import math


class Circle:
    def __init__(self, r):
        self.r = r

    def area(self):
        return math.pi * self.r * self.r


class Square:
    def __init__(self, s):
        self.s = s

    def area(self):
        return self.s * self.s


def make(i):
    return Circle(i % 7) if i % 2 else Square(i % 5)


def area(shape):
    total = 0.0
    for _ in range(50):
        total += shape.area()
    return total
