# Virtual method calls through vtable function pointers, isinstance by
# subclass range, statics that point to each other (a ring: a cycle), a
# static array, and an instance built at run time.
type array_rpy_string = GcArray(Ptr(rpy_string))
type list_rpy_string = GcStruct { length: Signed, items: Ptr(array_rpy_string) }
type rpy_string = GcStruct { hash: Signed, length: Signed, ..Array(Char) }
type object = GcStruct { typeptr: Ptr(object_vtable) }
type object_vtable = GcStruct { subclassrange_min: Signed, subclassrange_max: Signed, name: Ptr(rpy_string) }
type vtable_Node = GcStruct { subclassrange_min: Signed, subclassrange_max: Signed, name: Ptr(rpy_string), eval: Func(Ptr(inst_Node) -> Signed) }
type inst_Node = GcStruct { typeptr: Ptr(object_vtable) }
type inst_Num = GcStruct { typeptr: Ptr(object_vtable), value: Signed }
type inst_Add = GcStruct { typeptr: Ptr(object_vtable), left: Ptr(inst_Node), right: Ptr(inst_Node) }
type inst_Ring = GcStruct { typeptr: Ptr(object_vtable), value: Signed, next: Ptr(inst_Ring) }
type array_signed = GcArray(Signed)
prebuilt &0 = struct<vtable_Node> {subclassrange_min: 1, subclassrange_max: 4, name: "Node", eval: @Node.eval}
prebuilt &1 = struct<vtable_Node> {subclassrange_min: 2, subclassrange_max: 3, name: "Num", eval: @Num.eval}
prebuilt &2 = struct<vtable_Node> {subclassrange_min: 3, subclassrange_max: 4, name: "Add", eval: @Add.eval}
prebuilt &3 = struct<inst_Num> {typeptr: &1, value: 40}
prebuilt &4 = struct<inst_Num> {typeptr: &1, value: 2}
prebuilt &5 = struct<inst_Add> {typeptr: &2, left: &3, right: &4}
prebuilt &6 = struct<inst_Ring> {typeptr: &8, value: 1, next: &7}
prebuilt &7 = struct<inst_Ring> {typeptr: &8, value: 20, next: &6}
prebuilt &8 = struct<object_vtable> {subclassrange_min: 4, subclassrange_max: 5, name: "Ring"}
prebuilt &9 = array<array_signed> [5, 6, 7]
prebuilt &10 = struct<rpy_string> {hash: 0, length: 3} [c"a", c"b", c"c"]
entry entry_point

graph entry_point(argv_0) {
  block0(argv_0: Ptr(list_rpy_string)):
    tree_1: Ptr(inst_Node) = same_as(&5)
    v2: Signed = direct_call(@call_eval, tree_1)
    v3: Void = direct_call(@print_int, v2)
    n_4: Ptr(inst_Num) = malloc(#inst_Num)
    v5: Void = setfield(n_4, #typeptr, &1)
    v6: Void = setfield(n_4, #value, 7)
    a_7: Ptr(inst_Add) = malloc(#inst_Add)
    v8: Void = setfield(a_7, #typeptr, &2)
    v9: Void = setfield(a_7, #left, &5)
    v10: Ptr(inst_Node) = cast_pointer(n_4)
    v11: Void = setfield(a_7, #right, v10)
    v12: Ptr(inst_Node) = cast_pointer(a_7)
    v13: Signed = direct_call(@call_eval, v12)
    v14: Void = direct_call(@print_int, v13)
    v15: Bool = direct_call(@is_add, v12)
    v16: Bool = direct_call(@is_add, v10)
    v17: Signed = cast_bool_to_int(v15)
    v18: Signed = cast_bool_to_int(v16)
    v19: Void = direct_call(@print_int, v17)
    v20: Void = direct_call(@print_int, v18)
    v21: Signed = direct_call(@ring_sum, &6, 5)
    v22: Void = direct_call(@print_int, v21)
    v23: Ptr(inst_Ring) = getfield(&6, #next)
    v24: Ptr(inst_Ring) = getfield(v23, #next)
    v25: Bool = ptr_eq(v24, &6)
    v26: Signed = cast_bool_to_int(v25)
    v27: Void = direct_call(@print_int, v26)
    v28: Signed = getarraysize(&9)
    v29: Signed = getarrayitem(&9, 2)
    v30: Signed = int_mul(v28, v29)
    v31: Void = direct_call(@print_int, v30)
    v32: Void = direct_call($rpy_print_str, &10)
    v33: Void = direct_call($rpy_print_char, "\x0a")
    f_34: Func(Ptr(inst_Node) -> Signed) = getfield(&1, #eval)
    v35: Bool = ptr_eq(f_34, @Num.eval)
    v36: Bool = ptr_nonzero(f_34)
    v37: Bool = ptr_iszero(f_34)
    v38: Signed = cast_bool_to_int(v35)
    v39: Signed = cast_bool_to_int(v36)
    v40: Signed = cast_bool_to_int(v37)
    v41: Void = direct_call(@print_int, v38)
    v42: Void = direct_call(@print_int, v39)
    v43: Void = direct_call(@print_int, v40)
    v44: Ptr(object_vtable) = getfield(&3, #typeptr)
    v45: Ptr(rpy_string) = getfield(v44, #name)
    v46: Void = direct_call($rpy_print_str, v45)
    v47: Void = direct_call($rpy_print_char, "\x0a")
    -> return(0)
  returns v48: Signed
  raises v49: Ptr(object_vtable), v50: Ptr(object)
}

graph print_int(n_0) {
  block0(n_0: Signed):
    v1: Ptr(rpy_string) = direct_call($rpy_str_from_int, n_0)
    v2: Void = direct_call($rpy_print_str, v1)
    v3: Void = direct_call($rpy_print_char, "\x0a")
    -> return(None)
  returns v4: Void
  raises v5: Ptr(object_vtable), v6: Ptr(object)
}

graph call_eval(node_0) {
  block0(node_0: Ptr(inst_Node)):
    v1: Ptr(object_vtable) = getfield(node_0, #typeptr)
    v2: Ptr(vtable_Node) = cast_pointer(v1)
    f_3: Func(Ptr(inst_Node) -> Signed) = getfield(v2, #eval)
    v4: Signed = indirect_call(f_3, node_0)
    -> return(v4)
  returns v5: Signed
  raises v6: Ptr(object_vtable), v7: Ptr(object)
}

graph is_add(node_0) {
  block0(node_0: Ptr(inst_Node)):
    v1: Ptr(object_vtable) = getfield(node_0, #typeptr)
    v2: Signed = getfield(v1, #subclassrange_min)
    v3: Bool = int_between(3, v2, 4)
    -> return(v3)
  returns v4: Bool
  raises v5: Ptr(object_vtable), v6: Ptr(object)
}

graph Node.eval(self_0) {
  block0(self_0: Ptr(inst_Node)):
    -> return(-1)
  returns v1: Signed
  raises v2: Ptr(object_vtable), v3: Ptr(object)
}

graph Num.eval(self_0) {
  block0(self_0: Ptr(inst_Node)):
    v1: Ptr(inst_Num) = cast_pointer(self_0)
    v2: Signed = getfield(v1, #value)
    -> return(v2)
  returns v3: Signed
  raises v4: Ptr(object_vtable), v5: Ptr(object)
}

graph Add.eval(self_0) {
  block0(self_0: Ptr(inst_Node)):
    v1: Ptr(inst_Add) = cast_pointer(self_0)
    v2: Ptr(inst_Node) = getfield(v1, #left)
    v3: Ptr(inst_Node) = getfield(v1, #right)
    v4: Signed = direct_call(@call_eval, v2)
    v5: Signed = direct_call(@call_eval, v3)
    v6: Signed = int_add(v4, v5)
    -> return(v6)
  returns v7: Signed
  raises v8: Ptr(object_vtable), v9: Ptr(object)
}

graph ring_sum(r_0, n_1) {
  block0(r_0: Ptr(inst_Ring), n_1: Signed):
    -> block1(r_0, n_1, 0)
  block1(r_2: Ptr(inst_Ring), n_3: Signed, acc_4: Signed):
    v5: Bool = int_gt(n_3, 0)
    switch v5
      False -> return(acc_4)
      True -> block2(r_2, n_3, acc_4)
  block2(r_6: Ptr(inst_Ring), n_7: Signed, acc_8: Signed):
    v9: Signed = getfield(r_6, #value)
    v10: Signed = int_add(acc_8, v9)
    v11: Ptr(inst_Ring) = getfield(r_6, #next)
    v12: Signed = int_sub(n_7, 1)
    -> block1(v11, v12, v10)
  returns v13: Signed
  raises v14: Ptr(object_vtable), v15: Ptr(object)
}
