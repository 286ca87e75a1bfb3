/**
 * The viewer's control panel (lil-gui): file, method and layout, animation and pose, the
 * skinning templates of the selected joint, overlays, painting and export.
 *
 * @module
 */
import GUI from 'lil-gui';
import { VIEW_METHODS, app, params, settings, state } from './app.js';
import { startPainting } from './paint.js';
import { fillTemplateControls, selectTemplates } from './templates-ui.js';
import { frame } from './views.js';

/** The clip the stress pose stopped (restored with the rest pose). */
let clipBeforeStress = '';

export function rebuildGui(bones: string[]): void {
  clipBeforeStress = '';
  state.gui?.destroy();
  if (params.get('ui') === '0') return;
  state.gui = new GUI({ title: 'corskin' });
  // The common actions on top, every group but the animation collapsed: the panel fits 1280×800.
  state.gui.add(settings, 'load').name('open .glb…');
  state.gui
    .add(settings, 'layout', {
      'auto (largest)': 'auto',
      'side by side': 'side',
      'grid (2 × 2; 3 × 2 for five)': 'grid',
      'one view': 'single',
    })
    .onChange(() => state.autoFramed && state.views[0] && frame(state.views[0]));
  state.gui
    .add(settings, 'method', Object.fromEntries(VIEW_METHODS.map((m) => [m.label, m.id])))
    .name('method (one view)');
  state.gui
    .add(settings, 'pose', { rest: 'rest', 'stress pose': 'stress', 'stress, half': 'stress-half' })
    .onChange((pose: string) => {
      // The stress pose lies under the clip: the clip stops so that it shows, and comes back
      // with the rest pose.
      if (pose !== 'rest') {
        if (settings.animation) clipBeforeStress = settings.animation;
        settings.animation = '';
        settings.playing = false;
      } else if (!settings.animation) settings.animation = clipBeforeStress;
      state.gui?.controllersRecursive().forEach((c) => c.updateDisplay());
      // Framed again on the new pose, as on loading (unless the user moved the camera).
      if (state.autoFramed && state.views[0]) frame(state.views[0]);
    });
  state.gui.add(settings, 'exportGlb').name('precompute CoRs & export .glb');
  if (state.gltf?.animations.length) {
    const anim = state.gui.addFolder('animation');
    const clips = state.gltf.animations;
    /** The time slider spans the clip chosen (every clip's longest with none). */
    const span = () => Math.max(clips.find((a) => a.name === settings.animation)?.duration ?? state.duration, 0.001);
    const clip = anim.add(settings, 'animation', ['', ...clips.map((a) => a.name)]);
    anim.add(settings, 'playing').name('play').listen();
    const time = anim.add(settings, 'time', 0, span(), 0.001).listen();
    clip.onChange(() => {
      time.max(span()).updateDisplay();
      // Framed again on the clip's pose (or the rest pose, with none), as the pose menu does.
      if (state.autoFramed && state.views[0]) frame(state.views[0]);
    });
  } else {
    const none = state.gui.addFolder('animation: none in this file');
    none.close();
  }
  const pose = state.gui.addFolder('pose a joint');
  pose.add(settings, 'joint', bones).onChange(() => {
    settings.slot = 'joint';
    selectTemplates();
  });
  pose.add(settings, 'twist', -180, 180, 1).name('twist (°)');
  pose.add(settings, 'bend', -180, 180, 1).name('bend (°)');
  pose.add(settings, 'frameJoint').name('frame the joint');
  pose.add(settings, 'preview').name('bend back and forth');
  pose.close();
  const templates = state.gui.addFolder('skinning templates (the joint above; Tab cycles)');
  state.templateControls = templates;
  fillTemplateControls();
  templates.close();
  const library = state.gui.addFolder('template library and editor');
  library.add(settings, 'importLibrary').name('import library .json…');
  library.add(settings, 'exportLibrary').name('export library .json');
  library.add(settings, 'editId').name('new template id');
  library.add(settings, 'editSide', ['inner', 'outer']).name('side of the bend');
  library.add(settings, 'editBend', 1, 180, 1).name('key pose bend (°)');
  library.add(settings, 'editBulge', -0.9, 2, 0.01).name('bulge at the key pose');
  library.add(settings, 'editSlide', -0.5, 0.5, 0.01).name('slide (bone templates)');
  library.add(settings, 'editTwist', -180, 180, 1).name('twist ° (bone templates)');
  library.add(settings, 'editSave').name('save & apply to the selected slot');
  library.add(settings, 'editDraw').name('draw: drag cage vertices into the key pose');
  library.add(settings, 'editSymmetric').name('draw symmetric about the bend');
  library.add(settings, 'exportTemplates').name('export .glb with cages & choices');
  library.add(settings, 'exportBaked').name('export baked standard .glb');
  library.close();
  const show = state.gui.addFolder('overlays');
  show.add(settings, 'skeleton').onChange((v: boolean) => state.views.forEach((x) => (x.skeleton.visible = v)));
  show.add(settings, 'centers').name('centers of rotation (CoR view)');
  show.add(settings, 'cage').name('template cages (templates view)');
  show.add(settings, 'heatmap').name('distortion heat map');
  show.close();
  const paint = state.gui.addFolder('paint weights (CoRs follow)');
  paint
    .add(settings, 'paint')
    .name('paint mode')
    .onChange(() => void startPainting());
  paint.add(settings, 'paintJoint', bones).name('joint');
  paint.add(settings, 'paintMode', ['add', 'subtract', 'replace', 'smooth']).name('brush');
  paint.add(settings, 'paintRadius', 0.005, 0.3, 0.005).name('radius (× size)');
  paint.add(settings, 'paintStrength', 0, 1, 0.01).name('strength');
  paint.add(settings, 'paintFalloff', ['smooth', 'linear', 'constant']).name('falloff');
  paint.add(settings, 'paintMirror').name('mirror (x)');
  paint.add(settings, 'smoothJoint').name('smooth weights around the joint');
  paint.add(settings, 'corCheck').name('CoR check (red: far from the bones)');
  paint.add(settings, 'undo');
  paint.add(settings, 'redo');
  if (!settings.paint) paint.close();
  // The panel gets a column of its own: it never covers a view.
  fitToPanel();
}

/** Leaves the control panel's column (its left edge to the window's right edge) to the panel. */
export function fitToPanel(): void {
  app.style.right = state.gui
    ? `${Math.max(0, window.innerWidth - state.gui.domElement.getBoundingClientRect().left)}px`
    : '0';
}
