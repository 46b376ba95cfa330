# The herd's lower bound (bench/RESULTS.md, "serve: herd"): the least any launcher can do with the
# herd's 500 commands. `xargs` is the bench's floor (xargs -P4); `setsid` forks them back to back
# from this small process, each in a session of its own as the spec requires; `plain` the same
# without setsid. No capture, no bookkeeping. Prints the start p99 (as the herd bench measures it)
# and the CPU of the children and of this launcher.
#   perl bench/herd-bound.pl xargs|setsid|plain
use strict; use warnings;
use POSIX ();
use File::Temp ();
use Time::HiRes qw(time sleep);

my $mode = shift // '';
die "usage: perl bench/herd-bound.pl xargs|setsid|plain\n" unless $mode =~ /^(xargs|setsid|plain)$/;
my $n = 500;
my $dir = File::Temp::tempdir(CLEANUP => 1);
my $file = "$dir/starts";
my @commands = map { "date '+herd-$_ %s.%N' >> $file" } 1 .. $n;
my $instant = time + 0.2;
sleep($instant - time);
my @before = times;
if ($mode eq 'xargs') {
  open(my $list, '>', "$dir/commands") or die $!;
  print $list map { "$_\n" } @commands;
  close $list;
  system("xargs -P4 -n1 -d '\\n' /bin/sh -c < $dir/commands") == 0 or die "xargs failed\n";
} else {
  for my $command (@commands) {
    my $pid = fork() // die "fork: $!\n";
    next if $pid;
    POSIX::setsid() if $mode eq 'setsid';
    { no warnings 'exec'; exec { '/bin/sh' } 'sh', '-c', $command; }
    POSIX::_exit(127);
  }
  1 while wait() > 0;
}
my @after = times;
open(my $starts, '<', $file) or die $!;
my @late = sort { $a <=> $b } map { (split ' ')[1] - $instant } <$starts>;
die "expected $n starts, got " . @late . "\n" unless @late == $n;
printf "%-6s p99 %.3f s  children CPU %.2f s  launcher CPU %.2f s\n", $mode,
  $late[int(@late * 0.99) - 1],
  $after[2] + $after[3] - $before[2] - $before[3],
  $after[0] + $after[1] - $before[0] - $before[1];
