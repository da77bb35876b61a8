<?php
// A small PHP workload for Xdebug function traces: recursion, includes
// (include, require_once), classes with instance and static methods,
// closures, internal functions, and a function with a non-ASCII name.
require_once __DIR__ . '/shapes.php';
include __DIR__ . '/util.php';

function fib(int $n): int
{
    return $n < 2 ? $n : fib($n - 1) + fib($n - 2);
}

function walk(array $tree, int $depth = 0): int
{
    $sum = $depth;
    foreach ($tree as $child) {
        $sum += walk($child, $depth + 1);
    }
    return $sum;
}

function größe(array $shapes): float
{
    return array_sum(array_map(fn ($s) => $s->area(), $shapes));
}

$shapes = [];
for ($i = 0; $i < 12; $i++) {
    $shapes[] = Shapes\make($i);
}
$tree = [[[], [[]]], [[[[]]]], []];
$total = fib(10) + walk($tree) + größe($shapes);
usort($shapes, fn ($a, $b) => $a->area() <=> $b->area());
echo Util::fmt($total), "\n";
