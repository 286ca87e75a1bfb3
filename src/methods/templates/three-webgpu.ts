/**
 * Skinning templates on WebGPURenderer (Ju, Zhou, van de Panne, Cohen-Or, Neumann, "Reusable
 * Skinning Templates Using Cage-based Deformations", ACM TOG 27(5), SIGGRAPH Asia 2008): the
 * method's TSL kernel, the steps of its GLSL kernel (`three-glsl.ts`) — DQS, then the cage's correction
 * dual quaternions through the vertex's binding run (`three.ts`), blended with the identity.
 *
 * @module
 */
import { Loop, attribute, cross, dot, float, int, positionLocal, texture, vec4 } from 'three/tsl';
import {
  dqsPosition,
  qlerp,
  rotate,
  rotateNormals,
  texelAddress,
  type Node,
  type TslContext,
  type TslKernel,
} from '../../three/tsl.js';

/** The skinning templates' TSL kernel. */
export const TEMPLATES_TSL: TslKernel = {
  id: 'templates',
  skin(c: TslContext) {
    const b = qlerp(c);
    dqsPosition(b);
    const cage = texture(c.o.textures.corskinCage);
    const binding = texture(c.o.textures.corskinBinding);
    const range = attribute('corskinTemplateRange', 'vec2');
    const first = int(range.x).toConst();
    const texels = int(range.y).toConst();
    const real = (index: Node): Node => cage.load(texelAddress(int(index).mul(2)));
    const dual = (index: Node): Node => cage.load(texelAddress(int(index).mul(2).add(1)));
    const cr = vec4(0).toVar();
    const cd = vec4(0).toVar();
    const share = float(0).toVar();
    Loop({ start: int(0), end: texels, type: 'int', condition: '<' }, ({ i }: { i: Node }) => {
      const e = binding.load(texelAddress(first.add(i))).toConst();
      cr.addAssign(real(e.x).mul(e.y).add(real(e.z).mul(e.w)));
      cd.addAssign(dual(e.x).mul(e.y).add(dual(e.z).mul(e.w)));
      share.addAssign(e.y.add(e.w));
    });
    const unit: Node = cr.add(vec4(0, 0, 0, float(1).sub(share).max(0))).toConst();
    const len: Node = unit.length().toConst();
    const u: Node = unit.div(len).toConst();
    const du: Node = cd.div(len).toConst();
    const tc: Node = u.w.mul(du.xyz).sub(du.w.mul(u.xyz)).add(cross(u.xyz, du.xyz)).mul(2);
    positionLocal.assign(rotate(u, positionLocal).add(tc));
    // r′ = u ⊗ r: DQS's rotation, then the correction's.
    const r = b.r;
    const xyz: Node = u.w.mul(r.xyz).add(r.w.mul(u.xyz)).add(cross(u.xyz, r.xyz));
    rotateNormals(c, b, vec4(xyz, u.w.mul(r.w).sub(dot(u.xyz, r.xyz))).toConst());
  },
};
