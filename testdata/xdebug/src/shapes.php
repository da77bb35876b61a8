<?php
namespace Shapes;

interface Shape
{
    public function area(): float;
}

class Circle implements Shape
{
    public function __construct(private float $r) {}
    public function area(): float { return M_PI * $this->r ** 2; }
}

class Square implements Shape
{
    public function __construct(private float $s) {}
    public function area(): float { return $this->s * $this->s; }
}

function make(int $i): Shape
{
    return $i % 2 ? new Circle($i % 7) : new Square($i % 5);
}
