module Shapes (Shape (..), shape, area) where

data Shape = Circle Double | Rect Double Double

shape :: Int -> Shape
shape i
  | even i = Circle (fromIntegral (i `mod` 7))
  | otherwise = Rect (fromIntegral (i `mod` 5)) (fromIntegral (i `mod` 3))

area :: Shape -> Double
area (Circle r) = pi * r * r
area (Rect w h) = w * h
