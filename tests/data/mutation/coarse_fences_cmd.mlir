// A coarse-fences ABI function at the cmd level: the region that reads the input awaits the join of
// its output's alloca and the imported wait fence %wait; %signal covers the write to the output.
// Source of the mutation self-test's drop-wait-fence class (tests/fuzz/test_mutation_kill.py).
util.func public @fences_cmd(%in: !stream.resource<external>, %wait: !hal.fence, %signal: !hal.fence) -> !stream.resource<external> attributes {iree.abi.model = "coarse-fences"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ready = stream.timepoint.import on(#hal.device.affinity<@dev0>) %wait : (!hal.fence) => !stream.timepoint
  %out, %ta = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%ready, %ta) => !stream.timepoint
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%in as %a: !stream.resource<external>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@f {
      ro %a[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %o[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t => (%signal : !hal.fence)
  util.return %out : !stream.resource<external>
}
