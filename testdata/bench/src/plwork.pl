# plwork: a Perl workload (hashes, sorting, regexps, string building)
# recorded with perf record --call-graph dwarf for the pfold benchmark dumps.
use strict; use warnings;
my $deadline = time + ($ARGV[0] // 3);
my $sink = 0; my $x = 1;
while (time < $deadline) {
    my %count; my @lines;
    for my $i (1..20000) {
        $x = ($x * 1103515245 + 12345) % 2147483648;
        my $name = "user" . ($x % 1000);
        $count{$name} += $x % 10007;
        push @lines, "$i;$name;" . ($x % 97);
    }
    my @top = (sort { $count{$b} <=> $count{$a} || $a cmp $b } keys %count)[0..9];
    $sink += scalar(@top);
    for (@lines) { $sink++ if /;user9\d\d;(\d+)$/ && $1 > 50 }
    my $joined = join(",", @lines); $sink += length(join "", split /,/, $joined) % 7;
}
print "$sink\n";
