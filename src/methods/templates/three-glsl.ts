/**
 * Skinning templates on WebGLRenderer (Ju, Zhou, van de Panne, Cohen-Or, Neumann, "Reusable
 * Skinning Templates Using Cage-based Deformations", ACM TOG 27(5), SIGGRAPH Asia 2008): the
 * method's GLSL kernel for three's skinning chunks (`three/chunks.ts`). DQS, then the blend of
 * the cage's corrections (dual quaternions, from `corskinCage`) through the vertex's run of
 * binding entries (`corskinBinding` from `corskinTemplateRange`, read once in `skinbase_vertex`;
 * the packing of `three.ts`) with the identity for the share left to DQS, applied to position
 * and normal — the CPU deformer's `x′ = C(DQS(x))`.
 *
 * @module
 */
import { dqsPosition, jointBlend, rotatedNormal } from '../../three/chunks.js';
import type { GlslKernel } from '../../three/kernel.js';

/** The skinning templates' GLSL kernel. */
export const TEMPLATES_GLSL: GlslKernel = {
  pars: () => /* glsl */ `uniform highp sampler2D corskinCage;
uniform highp sampler2D corskinBinding;
in vec2 corskinTemplateRange;
vec4 corskinCageReal( const in float index ) {
  return texelFetch( corskinCage, corskinTexel( 2 * int( index ) ), 0 );
}
vec4 corskinCageDual( const in float index ) {
  return texelFetch( corskinCage, corskinTexel( 2 * int( index ) + 1 ), 0 );
}`,
  base: (o) => /* glsl */ `${jointBlend(o)}
  // The templates' correction: the vertex's cage entries' dual quaternions blended with the
  // identity for the share left to DQS (all real parts w ≥ 0: no sign flips), normalised.
  int csFirst = int( corskinTemplateRange.x );
  int csTexels = int( corskinTemplateRange.y );
  vec4 csCr = vec4( 0.0 );
  vec4 csCd = vec4( 0.0 );
  float csShare = 0.0;
  for ( int t = 0; t < csTexels; t++ ) {
    vec4 e = texelFetch( corskinBinding, corskinTexel( csFirst + t ), 0 );
    csCr += e.y * corskinCageReal( e.x ) + e.w * corskinCageReal( e.z );
    csCd += e.y * corskinCageDual( e.x ) + e.w * corskinCageDual( e.z );
    csShare += e.y + e.w;
  }
  csCr.w += max( 0.0, 1.0 - csShare );
  float csCl = length( csCr );
  csCr /= csCl;
  csCd /= csCl;`,
  normal: () => rotatedNormal((v) => `corskinRotate( csCr, corskinRotate( csQ, ${v} ) )`),
  position: (o) => /* glsl */ `${dqsPosition(o)}
  transformed = corskinRotate( csCr, transformed ) + 2.0 * ( csCr.w * csCd.xyz - csCd.w * csCr.xyz + cross( csCr.xyz, csCd.xyz ) );`,
};
