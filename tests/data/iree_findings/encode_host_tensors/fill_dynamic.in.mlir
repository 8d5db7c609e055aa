// A 1x1 fill at row %i, column %j of a ?x4xf32 tensor of %rows rows: one element changes.
util.func public @fill_dynamic(%value: f32, %target: !stream.resource<*>, %rows: index, %size: index, %i: index, %j: index) -> !stream.resource<*> {
  %c1 = arith.constant 1 : index
  %result = stream.tensor.fill %value, %target[%i, %j for %c1, %c1] : f32 -> tensor<?x4xf32>{%rows} in %target as !stream.resource<*>{%size}
  util.return %result : !stream.resource<*>
}
