<?php
class Util
{
    public static function fmt(float $x): string
    {
        return sprintf("%.3f", round($x, 3));
    }
}
